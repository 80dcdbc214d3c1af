import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeEntities, htmlToText } from './html-to-text.ts';

describe('htmlToText', () => {
  it('turns block elements into lines and paragraphs into blank-line separated blocks', () => {
    assert.equal(
      htmlToText(
        '<h1>Title</h1><p>First   paragraph\n  wrapped.</p><div>A line</div><div>Another<br>and a break</div><p>Last</p>',
      ),
      'Title\n\nFirst paragraph wrapped.\n\nA line\nAnother\nand a break\n\nLast',
    );
  });

  it('writes links as text (url), and a link whose text is its url once', () => {
    assert.equal(
      htmlToText(
        '<p>Go <a href="https://x.test/a?b=1&amp;c=2">claim  it</a> now.</p><p><a href="https://x.test/y">https://x.test/y</a></p>',
      ),
      'Go claim it (https://x.test/a?b=1&c=2) now.\n\nhttps://x.test/y',
    );
    assert.equal(htmlToText('<a href="mailto:help@x.test">help@x.test</a>'), 'help@x.test');
    assert.equal(htmlToText('<a href="javascript:alert(1)">click</a>'), 'click');
    assert.equal(
      htmlToText('<a href="https://x.test/logo"><img src="logo.png" alt="Logo"></a>'),
      'https://x.test/logo',
    );
  });

  it('decodes character references: named, decimal and hexadecimal', () => {
    assert.equal(
      htmlToText('<p>Smith &amp; Sons &lt;b&gt; &quot;q&quot; &#39;s&#x27; &euro;5 &copy; &#128512;</p>'),
      'Smith & Sons <b> "q" \'s\' €5 © 😀',
    );
    assert.equal(decodeEntities('&unknown; &#0; &amp;amp;'), '&unknown; \ufffd &amp;');
  });

  it('leaves out head, style, script, comments, images and hidden elements', () => {
    const html = `<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style></head>
<body><div style="display: none; max-height:0">preheader</div><!-- a <p>comment</p> -->
<script>alert("<p>x</p>")</script><p>Body<img src="x.png" alt="picture"></p><span hidden>secret</span></body></html>`;
    assert.equal(htmlToText(html), 'Body');
  });

  it('lays out lists and table cells', () => {
    assert.equal(
      htmlToText('<ul><li>one</li><li>two</li></ul><ol><li>a</li><li>b</li></ol>'),
      '- one\n- two\n\n1. a\n2. b',
    );
    assert.equal(
      htmlToText('<table><tr><td>Item</td><td>Golden</td></tr><tr><td>Price</td><td>5</td></tr></table>'),
      'Item Golden\nPrice 5',
    );
  });

  it('leaves no tag behind, even of broken markup', () => {
    const text = htmlToText('<p>a < b and <b>bold</b> <i class="x>y">it</i> <unclosed attr="x</p>');
    assert.ok(!/<[a-z/]/i.test(text), text);
    assert.ok(text.startsWith('a < b and bold'), text);
  });

  it('is linear on hostile input', () => {
    const started = Date.now();
    htmlToText(`${'<a href="'.repeat(20_000)}${'<p '.repeat(20_000)}${'&#'.repeat(20_000)}`);
    assert.ok(Date.now() - started < 2000);
  });
});
