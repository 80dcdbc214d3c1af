/**
 * The text/plain part of a mail, derived from its rendered HTML so every template (a custom one
 * too) has one: block elements become line breaks, links `text (url)`, list items `- item`;
 * images, hidden elements (`display:none`: a preheader) and head, style and script are left out;
 * character references are decoded and no tag is left. A small scanner,
 * not a browser: mail HTML is simple, and what it does not understand it drops.
 */

/** Elements that start and end a line of their own. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);
/** Blocks followed by an empty line (paragraph-like). */
const PARAGRAPH = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'ul',
  'ol',
  'blockquote',
  'pre',
]);
/** Elements whose content is never text. */
const SKIPPED = new Set(['head', 'style', 'script', 'title', 'template', 'noscript']);

/** Elements with no content and no end tag. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

function isHidden(tag: string): boolean {
  return /\bdisplay\s*:\s*none\b/i.test(attribute(tag, 'style') ?? '') || /\shidden(\s|=|\/?>)/i.test(tag);
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  deg: '°',
  times: '×',
  divide: '÷',
  rarr: '→',
  larr: '←',
  zwnj: '',
  zwj: '',
  shy: '',
};

/** Decodes character references: named (a common set), decimal and hexadecimal. */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/g,
    (whole, ref: string) => {
      if (ref[0] === '#') {
        const code =
          ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
        if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
        return String.fromCodePoint(code);
      }
      return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
    },
  );
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(tag);
  if (!match) return undefined;
  return decodeEntities(match[1] ?? match[2] ?? match[3] ?? '').trim();
}

/**
 * Line breaks while the text is built (private-use characters, taken out of the input first); runs
 * of them collapse to the widest (see tidy).
 */
const LINE = '\ue000';
const PARAGRAPH_BREAK = '\ue001';

export function htmlToText(html: string): string {
  const out: string[] = [];
  /** Open links: where their text starts in `out`, and their target. */
  const links: { start: number; href: string | undefined }[] = [];
  const lists: { ordered: boolean; index: number }[] = [];
  /** The element being left out, and how deep in it (elements of its name nest). */
  let skipping: { name: string; depth: number } | undefined;
  let preformatted = 0;

  const text = (chunk: string) => {
    if (skipping !== undefined || chunk === '') return;
    // What is left of a tag that never closes (`<a href="x` at the end) is markup, not text.
    const raw = chunk.replace(/<[a-zA-Z/!?][\s\S]*$/, '');
    // HTML collapses white space (except in <pre>); references are decoded after.
    out.push(decodeEntities(preformatted > 0 ? raw.replace(/\n/g, LINE) : raw.replace(/\s+/g, ' ')));
  };
  const tag = (token: string, name: string, closing: boolean) => {
    const selfClosing = token.endsWith('/>');
    if (skipping !== undefined) {
      if (name === skipping.name && !selfClosing) {
        skipping.depth += closing ? -1 : 1;
        if (skipping.depth === 0) skipping = undefined;
      }
      return;
    }
    if (!closing && !VOID.has(name) && (SKIPPED.has(name) || isHidden(token))) {
      if (!selfClosing) skipping = { name, depth: 1 };
      return;
    }
    switch (name) {
      case 'br':
        out.push(LINE);
        return;
      case 'hr':
        out.push(LINE, '----------', LINE);
        return;
      case 'img':
        return;
      case 'a':
        if (closing) {
          const link = links.pop();
          if (link?.href) {
            const content = out.splice(link.start).join('').replace(/\s+/g, ' ').trim();
            out.push(linkText(content, link.href));
          }
        } else {
          const href = attribute(token, 'href');
          links.push({
            start: out.length,
            href: href && !/^(javascript|data):/i.test(href) ? href : undefined,
          });
        }
        return;
      case 'td':
      case 'th':
        if (!closing) out.push(' ');
        return;
      case 'pre':
        preformatted = Math.max(0, preformatted + (closing ? -1 : 1));
        break;
      case 'ul':
      case 'ol':
        if (closing) lists.pop();
        else lists.push({ ordered: name === 'ol', index: 0 });
        break;
      case 'li':
        if (!closing) {
          const list = lists.at(-1);
          out.push(LINE);
          if (list) list.index += 1;
          out.push(list?.ordered ? `${list.index}. ` : '- ');
          return;
        }
        break;
    }
    if (BLOCK.has(name)) out.push(PARAGRAPH.has(name) ? PARAGRAPH_BREAK : LINE);
  };

  // One pass, linear in the input: a tag is what lies between a '<' and the next '>' (the last
  // '<' before it starts the tag; anything before is text), so broken markup costs no rescans.
  const source = html.replace(/\r\n?/g, '\n').replace(/[\ue000\ue001]/g, '');
  let i = 0;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    if (lt === -1) {
      text(source.slice(i));
      break;
    }
    text(source.slice(i, lt));
    if (source.startsWith('<!--', lt)) {
      const end = source.indexOf('-->', lt + 4);
      i = end === -1 ? source.length : end + 3;
      continue;
    }
    const gt = source.indexOf('>', lt + 1);
    if (gt === -1) {
      text(source.slice(lt));
      break;
    }
    const start = source.lastIndexOf('<', gt);
    text(source.slice(lt, start));
    const token = source.slice(start, gt + 1);
    i = gt + 1;
    const match = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)(?=[\s/>])/.exec(token);
    if (match) tag(token, match[2]!.toLowerCase(), match[1] === '/');
    else if (!/^<[!?]/.test(token)) text(token);
  }
  return tidy(out.join(''));
}

function linkText(text: string, href: string): string {
  const target = href.replace(/^mailto:/i, '');
  if (text === '' || text === href || text === target) return target;
  return `${text} (${target})`;
}

/**
 * Each run of breaks becomes one line break, or an empty line when one of them ends a paragraph;
 * lines are trimmed, and at most one empty line stays in a row.
 */
function tidy(text: string): string {
  return text
    .replace(/[ \t]*[\ue000\ue001][\ue000\ue001 \t]*/g, (run) =>
      run.includes(PARAGRAPH_BREAK) ? '\n\n' : '\n',
    )
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
