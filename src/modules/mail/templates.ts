import Handlebars from 'handlebars';

/** Template types (SERVICE-SPEC Group K). */
export const TEMPLATE_TYPES = [
  'USER_INVITE',
  'FORGOT_PASSWORD_RESET',
  'REDEEM_NFT',
  'CLAIM_PINCODE',
  'CLAIMED_NFT',
  'USER_TEST',
] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

interface DefaultTemplate {
  subject: string;
  html: string;
  text: string;
}

/** Built-in defaults (origin PLATFORM_DEFAULT). Handlebars escapes every {{value}} in HTML. */
const DEFAULTS: Partial<Record<TemplateType, DefaultTemplate>> = {
  USER_INVITE: {
    subject: 'You are invited to {{organization_name}}',
    html: `<p>Hello,</p>
<p>You have been invited to join <strong>{{organization_name}}</strong>.</p>
<p><a href="{{verify_url}}">Accept the invitation and set your password</a></p>
<p>This link expires on {{expires_at}}.</p>`,
    text: `Hello,

You have been invited to join {{organization_name}}.
Accept the invitation and set your password: {{verify_url}}

This link expires on {{expires_at}}.`,
  },
  FORGOT_PASSWORD_RESET: {
    subject: 'Reset your password',
    html: `<p>Hello,</p>
<p>Someone asked to reset the password of your account at <strong>{{organization_name}}</strong>.</p>
<p><a href="{{reset_url}}">Choose a new password</a></p>
<p>This link expires on {{expires_at}}. If you did not ask for it, ignore this message.</p>`,
    text: `Hello,

Someone asked to reset the password of your account at {{organization_name}}.
Choose a new password: {{reset_url}}

This link expires on {{expires_at}}. If you did not ask for it, ignore this message.`,
  },
};

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

const compiled = new Map<string, HandlebarsTemplateDelegate>();

function compile(source: string, html: boolean): HandlebarsTemplateDelegate {
  const key = `${html ? 'h' : 't'}:${source}`;
  let template = compiled.get(key);
  if (!template) {
    template = Handlebars.compile(source, { noEscape: !html, strict: false });
    compiled.set(key, template);
  }
  return template;
}

export function renderDefaultTemplate(type: TemplateType, variables: Record<string, string>): RenderedMail {
  const template = DEFAULTS[type];
  if (!template) throw new Error(`no default template for ${type}`);
  return {
    subject: compile(template.subject, false)(variables),
    html: compile(template.html, true)(variables),
    text: compile(template.text, false)(variables),
  };
}
