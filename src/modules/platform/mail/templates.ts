import Handlebars from 'handlebars';
import type { TemplateType } from '../../../db/schema.ts';
import { htmlToText } from './html-to-text.ts';

export { TEMPLATE_TYPES } from '../../../db/enums.ts';
export type { TemplateType };

/**
 * Mail templates (docs/api.md#templates): Handlebars, rendered with HTML escaping in the HTML part and no
 * access to prototypes. A template is checked whole when it is written (syntax, helpers, partials,
 * a trial render), so a stored template always renders.
 */

export interface TemplateSource {
  subject: string;
  html: string;
}

export interface RenderedMail {
  subject: string;
  html: string;
  /** Derived from the rendered HTML (html-to-text.ts), so every template has a text part. */
  text: string;
}

/** The variables each type is rendered with (docs/api.md#templates), and the example values of previews. */
export const TEMPLATE_VARIABLES: Record<TemplateType, Readonly<Record<string, string>>> = {
  USER_INVITE: {
    organization_name: 'Acme',
    invite_url: 'https://tokens.example/verify?token=example&email=jane%40example.com',
    email: 'jane@example.com',
  },
  FORGOT_PASSWORD_RESET: {
    reset_url: 'https://tokens.example/reset-password?token=example',
    email: 'jane@example.com',
  },
  REDEEM_NFT: {
    claim_url: 'https://tokens.example/claim?token=example',
    item_name: 'Golden Ticket #1',
    item_image: 'https://tokens.example/images/golden-ticket.png',
    collection_name: 'Golden Tickets',
    organization_name: 'Acme',
    expiration: '2026-12-31T23:59:59.000Z',
  },
  CLAIM_PINCODE: {
    pin_code: '123456',
    item_name: 'Golden Ticket #1',
    expires_in_minutes: '15',
  },
  CLAIMED_NFT: {
    item_name: 'Golden Ticket #1',
    item_image: 'https://tokens.example/images/golden-ticket.png',
    to_address: '0x52908400098527886E0F7030069857D2E4169EE7',
    tx_hash: '0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b',
    collection_name: 'Golden Tickets',
  },
  USER_TEST: {
    organization_name: 'Acme',
  },
};

/** A time as mail shows it: `29 November 2026, 10:00 UTC` (one format whatever the reader's locale). */
export function mailDate(date: Date): string {
  const months = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ];
  const hh = String(date.getUTCHours()).padStart(2, '0');
  const mm = String(date.getUTCMinutes()).padStart(2, '0');
  return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${hh}:${mm} UTC`;
}

// ---------------------------------------------------------------------------------------------
// The built-in defaults (origin PLATFORM_DEFAULT): one inline-styled, table-based layout that
// renders in common clients (no <style> blocks, no external CSS), a call-to-action button for
// links, and a footer naming the organization. Besides the variables of TEMPLATE_VARIABLES, the
// service passes `expires_at` (invite, reset) and `organization_name`, which the defaults show
// when present.

const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const TEXT = `${FONT};font-size:16px;line-height:24px;color:#1f2933`;
const SMALL = `${FONT};font-size:13px;line-height:20px;color:#6b7280`;

function layout(parts: { preheader: string; heading: string; body: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.heading}</title>
</head>
<body style="margin:0;padding:0;background-color:#f4f5f7">
<div style="display:none;max-height:0;overflow:hidden">${parts.preheader}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f4f5f7">
<tr>
<td align="center" style="padding:32px 16px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;background-color:#ffffff;border-radius:8px">
<tr>
<td style="padding:32px 32px 8px 32px">
<h1 style="margin:0;${FONT};font-size:22px;line-height:30px;color:#111827">${parts.heading}</h1>
</td>
</tr>
<tr>
<td style="padding:8px 32px 32px 32px;${TEXT}">
${parts.body}
</td>
</tr>
</table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px">
<tr>
<td align="center" style="padding:16px 32px;${SMALL}">
{{#if organization_name}}<p style="margin:0">Sent by {{organization_name}}.</p>{{/if}}
</td>
</tr>
</table>
</td>
</tr>
</table>
</body>
</html>`;
}

function paragraph(content: string, style = TEXT): string {
  return `<p style="margin:0 0 16px 0;${style}">${content}</p>`;
}

/** A bulletproof button (a padded table cell holding the link), then the link in full. */
function button(urlVariable: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 24px 0">
<tr>
<td align="center" bgcolor="#2563eb" style="border-radius:6px">
<a href="{{${urlVariable}}}" target="_blank" style="display:inline-block;padding:12px 24px;${FONT};font-size:16px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:6px">${label}</a>
</td>
</tr>
</table>
${paragraph(`If the button does not work, copy this link into your browser:<br><a href="{{${urlVariable}}}" style="color:#2563eb;word-break:break-all">{{${urlVariable}}}</a>`, SMALL)}`;
}

function itemImage(): string {
  return `{{#if item_image}}<p style="margin:0 0 16px 0"><img src="{{item_image}}" alt="{{item_name}}" width="240" style="display:block;max-width:100%;height:auto;border:0;border-radius:6px"></p>{{/if}}`;
}

const DEFAULTS: Record<TemplateType, TemplateSource> = {
  USER_INVITE: {
    subject: 'You are invited to {{organization_name}}',
    html: layout({
      preheader: 'Accept your invitation to {{organization_name}}',
      heading: 'You are invited to {{organization_name}}',
      body: [
        paragraph('Hello,'),
        paragraph(
          'You have been invited to join <strong>{{organization_name}}</strong> with the account {{email}}. Accept the invitation to choose your password.',
        ),
        button('invite_url', 'Accept the invitation'),
        `{{#if expires_at}}${paragraph('This invitation expires on {{expires_at}}.', SMALL)}{{/if}}`,
      ].join('\n'),
    }),
  },
  FORGOT_PASSWORD_RESET: {
    subject: 'Reset your password',
    html: layout({
      preheader: 'Choose a new password',
      heading: 'Reset your password',
      body: [
        paragraph('Hello,'),
        paragraph(
          'Someone asked to reset the password of the account {{email}}{{#if organization_name}} at <strong>{{organization_name}}</strong>{{/if}}.',
        ),
        button('reset_url', 'Choose a new password'),
        paragraph(
          '{{#if expires_at}}This link expires on {{expires_at}}. {{/if}}If you did not ask for it, ignore this message: your password stays as it is.',
          SMALL,
        ),
      ].join('\n'),
    }),
  },
  REDEEM_NFT: {
    subject: '{{organization_name}} sent you {{item_name}}',
    html: layout({
      preheader: 'Claim {{item_name}} from {{organization_name}}',
      heading: 'You have received {{item_name}}',
      body: [
        paragraph('Hello,'),
        paragraph(
          '<strong>{{organization_name}}</strong> sent you <strong>{{item_name}}</strong>{{#if collection_name}} from the collection {{collection_name}}{{/if}}.',
        ),
        itemImage(),
        button('claim_url', 'Claim it'),
        `{{#if expiration}}${paragraph('This link works until {{expiration}}.', SMALL)}{{/if}}`,
      ].join('\n'),
    }),
  },
  CLAIM_PINCODE: {
    subject: 'Your code to claim {{item_name}}: {{pin_code}}',
    html: layout({
      preheader: 'Your code is {{pin_code}}',
      heading: 'Your claim code',
      body: [
        paragraph('Enter this code to claim <strong>{{item_name}}</strong>:'),
        `<p style="margin:0 0 16px 0;${FONT};font-size:32px;line-height:40px;font-weight:700;letter-spacing:6px;color:#111827">{{pin_code}}</p>`,
        paragraph(
          'It works for {{expires_in_minutes}} minutes. If you did not ask for it, ignore this message.',
          SMALL,
        ),
      ].join('\n'),
    }),
  },
  CLAIMED_NFT: {
    subject: '{{item_name}} is yours',
    html: layout({
      preheader: '{{item_name}} is now in your wallet',
      heading: '{{item_name}} is yours',
      body: [
        paragraph(
          '<strong>{{item_name}}</strong>{{#if collection_name}} from {{collection_name}}{{/if}} is now held by your address:',
        ),
        itemImage(),
        paragraph('<code style="word-break:break-all">{{to_address}}</code>'),
        '{{#if tx_hash}}' +
          paragraph('Transaction: <code style="word-break:break-all">{{tx_hash}}</code>', SMALL) +
          '{{/if}}',
      ].join('\n'),
    }),
  },
  USER_TEST: {
    subject: 'Test mail from {{organization_name}}',
    html: layout({
      preheader: 'Mail is set up',
      heading: 'Mail is set up',
      body: paragraph(
        'This is a test mail from <strong>{{organization_name}}</strong>. If you can read it, mail is delivered.',
      ),
    }),
  },
};

export function defaultTemplate(type: TemplateType): TemplateSource {
  return DEFAULTS[type];
}

// ---------------------------------------------------------------------------------------------
// Compilation and rendering

/** An environment of its own: nothing registered on the global Handlebars reaches templates. */
const hbs = Handlebars.create();

/**
 * Only the built-in block helpers; `lookup` and `log` are off (log writes to the console). With
 * knownHelpersOnly, `{{name}}` is always a value and any other helper fails compilation.
 */
const KNOWN_HELPERS = {
  helperMissing: false,
  blockHelperMissing: false,
  if: true,
  unless: true,
  each: true,
  with: true,
  lookup: false,
  log: false,
};

function compileOptions(html: boolean): CompileOptions {
  return { knownHelpers: KNOWN_HELPERS, knownHelpersOnly: true, noEscape: !html, strict: false };
}

/** Prototype access off, explicitly (it is Handlebars' default since 4.6, not a promise). */
const RUNTIME_OPTIONS: RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowedProtoProperties: {},
  allowedProtoMethods: {},
  allowCallsToHelperMissing: false,
  partials: {},
  decorators: {},
};

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

interface AstNode {
  type?: string;
  loc?: { start: { line: number; column: number } };
  name?: { original?: string };
  [key: string]: unknown;
}

/**
 * Partials and decorators have nothing to resolve to here: refused at write, never at send. In
 * HTML, `{{{value}}}` and `{{& value}}` (unescaped output) are refused too: every value is escaped.
 */
function refuseUnsupported(node: unknown, html: boolean): void {
  if (Array.isArray(node)) {
    for (const child of node) refuseUnsupported(child, html);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as AstNode;
  const where = n.loc ? ` on line ${n.loc.start.line}` : '';
  switch (n.type) {
    case 'PartialStatement':
    case 'PartialBlockStatement':
      throw new TemplateError(`partials are not supported${where}`);
    case 'Decorator':
    case 'DecoratorBlock':
      throw new TemplateError(`decorators are not supported${where}`);
    case 'MustacheStatement':
      if (html && n.escaped === false)
        throw new TemplateError(`unescaped output ({{{…}}} or {{& …}}) is not allowed in HTML${where}`);
  }
  for (const [key, value] of Object.entries(n)) if (key !== 'loc') refuseUnsupported(value, html);
}

/**
 * Compiled templates by source, least recently used out first, within a budget of source
 * characters (a template may be 256 KiB; thousands of organizations' must not fill the heap).
 */
const CACHE_BUDGET_CHARS = 8 * 1024 * 1024;
const cache = new Map<string, HandlebarsTemplateDelegate>();
let cachedChars = 0;

function compiled(source: string, html: boolean): HandlebarsTemplateDelegate {
  const key = `${html ? 'h' : 't'}:${source}`;
  let template = cache.get(key);
  if (template) {
    cache.delete(key);
    cache.set(key, template);
    return template;
  }
  template = hbs.compile(source, compileOptions(html));
  cache.set(key, template);
  cachedChars += key.length;
  for (const oldest of cache.keys()) {
    if (cachedChars <= CACHE_BUDGET_CHARS || oldest === key) break;
    cache.delete(oldest);
    cachedChars -= oldest.length;
  }
  return template;
}

function oneLine(message: string): string {
  return message.replace(/\s+/g, ' ').trim();
}

/** Compiles a template source completely; a TemplateError says why it cannot be used. */
export function checkTemplateSource(source: string, html: boolean): void {
  try {
    refuseUnsupported(hbs.parse(source), html);
    // precompile runs the whole compiler (compile() defers it to the first render).
    hbs.precompile(source, compileOptions(html));
  } catch (error) {
    if (error instanceof TemplateError) throw error;
    throw new TemplateError(oneLine(error instanceof Error ? error.message : String(error)));
  }
}

/**
 * A template as it is written (docs/api.md#templates): subject and HTML each compile, use no unknown helper,
 * partial or decorator, and render with the type's example values (runtime checks, such as an
 * `{{#if}}` without its argument). The problems, by field; empty when the template is usable.
 */
export function templateProblems(
  template: TemplateSource,
  type: TemplateType,
): { path: '/subject' | '/html'; message: string }[] {
  const problems: { path: '/subject' | '/html'; message: string }[] = [];
  for (const [path, source, html] of [
    ['/subject', template.subject, false],
    ['/html', template.html, true],
  ] as const) {
    try {
      checkTemplateSource(source, html);
      renderSource(source, html, TEMPLATE_VARIABLES[type]);
    } catch (error) {
      problems.push({ path, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return problems;
}

/** Variables as the template sees them: own string properties of an object with no prototype. */
function context(variables: Readonly<Record<string, string>>): Record<string, string> {
  const data = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(variables)) data[name] = value;
  return data;
}

function renderSource(source: string, html: boolean, variables: Readonly<Record<string, string>>): string {
  try {
    return compiled(source, html)(context(variables), RUNTIME_OPTIONS);
  } catch (error) {
    throw new TemplateError(oneLine(error instanceof Error ? error.message : String(error)));
  }
}

/** Renders subject and HTML and derives the text part. The subject is one line, unescaped. */
export function renderTemplate(
  template: TemplateSource,
  variables: Readonly<Record<string, string>>,
): RenderedMail {
  const subject = renderSource(template.subject, false, variables)
    .replace(/[\r\n\t]+/g, ' ')
    .trim();
  const html = renderSource(template.html, true, variables);
  return { subject, html, text: htmlToText(html) };
}

export function renderDefaultTemplate(type: TemplateType, variables: Record<string, string>): RenderedMail {
  return renderTemplate(DEFAULTS[type], variables);
}
