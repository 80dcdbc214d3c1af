import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkTemplateSource,
  mailDate,
  renderDefaultTemplate,
  renderTemplate,
  TEMPLATE_TYPES,
  TEMPLATE_VARIABLES,
  TemplateError,
  templateProblems,
} from './templates.ts';

const INVITE = {
  organization_name: 'Acme',
  invite_url: 'http://tokens.test/verify?token=abc&email=a%40example.test',
  expires_at: '2026-11-29T10:00:00.000Z',
  email: 'a@example.test',
};

describe('default mail templates', () => {
  it('escapes a <script> in a variable in the HTML part', () => {
    const mail = renderDefaultTemplate('USER_INVITE', {
      ...INVITE,
      organization_name: '<script>alert("x")</script>',
    });
    assert.ok(!mail.html.includes('<script>'), mail.html);
    assert.ok(mail.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), mail.html);
  });

  it('keeps a variable inside an attribute from closing it', () => {
    const mail = renderDefaultTemplate('USER_INVITE', {
      ...INVITE,
      invite_url: 'http://x.test/"><img src=x onerror=alert(1)>',
    });
    assert.ok(!mail.html.includes('"><img'), mail.html);
    assert.ok(
      mail.html.includes('href="http://x.test/&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;"'),
      mail.html,
    );
  });

  it('leaves the subject unescaped and derives a text part with the link in full', () => {
    const mail = renderDefaultTemplate('USER_INVITE', { ...INVITE, organization_name: 'Smith & <Sons>' });
    assert.equal(mail.subject, 'You are invited to Smith & <Sons>');
    assert.ok(mail.text.includes('join Smith & <Sons> with the account a@example.test.'), mail.text);
    assert.ok(mail.text.includes(`Accept the invitation (${INVITE.invite_url})`), mail.text);
    assert.ok(mail.text.includes(`\n${INVITE.invite_url}\n`), mail.text);
    assert.ok(mail.text.includes('expires on 2026-11-29T10:00:00.000Z'), mail.text);
    assert.ok(!/<[a-z/]/i.test(mail.text.replaceAll('<Sons>', '')), mail.text);
    // In HTML the link's & is written as &amp;, which a mail client reads back as &.
    assert.ok(
      mail.html.includes('href="http://tokens.test/verify?token&#x3D;abc&amp;email&#x3D;a%40example.test"'),
      mail.html,
    );
  });

  it('renders the password reset mail with its link and its expiry', () => {
    const mail = renderDefaultTemplate('FORGOT_PASSWORD_RESET', {
      organization_name: 'Acme',
      reset_url: 'http://tokens.test/reset-password?token=xyz',
      expires_at: '2026-11-29T10:00:00.000Z',
      email: 'a@example.test',
    });
    assert.equal(mail.subject, 'Reset your password');
    assert.ok(
      mail.text.includes('Choose a new password (http://tokens.test/reset-password?token=xyz)'),
      mail.text,
    );
    assert.ok(mail.text.includes('This link expires on 2026-11-29T10:00:00.000Z.'), mail.text);
  });

  it('lays every default out as a table with inline styles, a footer naming the organization', () => {
    for (const type of TEMPLATE_TYPES) {
      const mail = renderDefaultTemplate(type, { ...TEMPLATE_VARIABLES[type], organization_name: 'Acme' });
      assert.ok(mail.subject.length > 0 && mail.text.length > 0, type);
      assert.match(mail.html, /<table role="presentation"/, type);
      assert.ok(!mail.html.includes('<style'), `${type}: no <style> block (clients drop it)`);
      assert.ok(mail.text.includes('Sent by Acme.'), `${type}: ${mail.text}`);
      for (const name of Object.keys(TEMPLATE_VARIABLES[type])) {
        if (name === 'item_image') continue;
        assert.ok(
          mail.html.includes(
            TEMPLATE_VARIABLES[type][name]!.replace(/&/g, '&amp;').replace(/=/g, '&#x3D;'),
          ) ||
            mail.text.includes(TEMPLATE_VARIABLES[type][name]!) ||
            name === 'organization_name',
          `${type} shows ${name}`,
        );
      }
    }
  });

  it('has a call-to-action button for each mail with a link', () => {
    for (const [type, variable] of [
      ['USER_INVITE', 'invite_url'],
      ['FORGOT_PASSWORD_RESET', 'reset_url'],
      ['REDEEM_NFT', 'claim_url'],
    ] as const) {
      const mail = renderDefaultTemplate(type, {
        ...TEMPLATE_VARIABLES[type],
        [variable]: 'https://x.test/go',
      });
      assert.match(
        mail.html,
        /<td align="center" bgcolor="#2563eb"[^>]*>\s*<a href="https:\/\/x.test\/go"/,
        type,
      );
    }
  });

  it('shows times the same way whatever the locale', () => {
    assert.equal(mailDate(new Date('2026-11-29T09:05:00.000Z')), '29 November 2026, 09:05 UTC');
  });

  it('renders with no variables at all (they are empty)', () => {
    for (const type of TEMPLATE_TYPES) assert.ok(renderDefaultTemplate(type, {}).subject.length > 0, type);
  });
});

describe('custom templates', () => {
  it('gives prototypes nothing: {{constructor.name}}, {{__proto__}}, {{toString}}', () => {
    const mail = renderTemplate(
      {
        subject: '[{{constructor.name}}][{{__proto__}}]',
        html: '<p>[{{constructor.name}}][{{__proto__}}][{{toString}}][{{item_name.constructor.name}}][{{#with item_name}}{{constructor}}{{/with}}]</p>',
      },
      { item_name: 'x' },
    );
    assert.equal(mail.subject, '[][]');
    assert.equal(mail.html, '<p>[][][][][]</p>');
  });

  it('refuses unknown helpers, log, lookup, partials, decorators and unescaped output', () => {
    for (const [source, message] of [
      ['{{upper item_name}}', /unknown helper upper/],
      ['{{log "x"}}', /unknown helper log/],
      ['{{lookup this "constructor"}}', /unknown helper lookup/],
      ['{{> footer}}', /partials are not supported/],
      ['{{#> layout}}x{{/layout}}', /partials are not supported/],
      ['{{* decorator}}', /decorators are not supported/],
      ['{{{item_name}}}', /unescaped output/],
      ['{{& item_name}}', /unescaped output/],
      ['{{#if item_name}}', /Parse error on line 1/],
    ] as const) {
      assert.throws(
        () => checkTemplateSource(source, true),
        (error: unknown) => {
          assert.ok(error instanceof TemplateError, String(error));
          assert.match(error.message, message, source);
          return true;
        },
      );
    }
    // In the subject (not HTML), {{{…}}} is the same as {{…}}.
    assert.doesNotThrow(() => checkTemplateSource('{{{item_name}}}', false));
  });

  it('names runtime problems too, by field: a trial render with the example values', () => {
    assert.deepEqual(
      templateProblems({ subject: '{{#each}}x{{/each}}', html: '<p>{{#if}}x{{/if}}</p>' }, 'REDEEM_NFT'),
      [
        { path: '/subject', message: 'Must pass iterator to #each' },
        { path: '/html', message: '#if requires exactly one argument' },
      ],
    );
    assert.deepEqual(
      templateProblems({ subject: 'Hi {{item_name}}', html: '<p>{{claim_url}}</p>' }, 'REDEEM_NFT'),
      [],
    );
  });

  it('keeps the subject on one line whatever the values hold', () => {
    const mail = renderTemplate(
      { subject: 'Hello {{name}}', html: '<p>x</p>' },
      { name: 'a\r\nBcc: x@y.test' },
    );
    assert.equal(mail.subject, 'Hello a Bcc: x@y.test');
  });

  it('renders the built-in block helpers', () => {
    const mail = renderTemplate(
      {
        subject: '{{#if a}}A{{else}}none{{/if}}',
        html: '<p>{{#unless b}}no b{{/unless}}{{#with a}}[{{this}}]{{/with}}</p>',
      },
      { a: 'xy' },
    );
    assert.equal(mail.subject, 'A');
    assert.equal(mail.html, '<p>no b[xy]</p>');
  });
});
