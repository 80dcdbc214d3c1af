/**
 * Mailbox strings as integrations and campaigns give them: `addr`, `<addr>` or `Name <addr>`
 * (the name may be quoted). Anything else, and any control character (CR/LF would start a new
 * header), is refused, so a sender can never inject headers into a message.
 */

export interface Mailbox {
  readonly name: string | undefined;
  readonly address: string;
}

const ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
// No control characters (C0, DEL, C1), no line or paragraph separators anywhere.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// A name is written quoted (formatMailbox), so only what quoting cannot carry is refused.
const UNQUOTED_NAME = /^[^<>"][^<>]*$/;
const QUOTED_NAME = /^"((?:[^"\\]|\\.)+)"$/;
const MAX_LENGTH = 320;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && ADDRESS.test(value);
}

/** A display name alone (`Acme via Tokens`): what a campaign's email_from may be. */
export function parseDisplayName(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > 200 || CONTROL.test(trimmed)) return undefined;
  const quoted = QUOTED_NAME.exec(trimmed);
  if (quoted) return quoted[1]?.replace(/\\(.)/g, '$1').trim() || undefined;
  return UNQUOTED_NAME.test(trimmed) ? trimmed : undefined;
}

/** `addr`, `<addr>` or `Name <addr>`; undefined for anything else. */
export function parseMailbox(value: string): Mailbox | undefined {
  if (value.length > MAX_LENGTH || CONTROL.test(value)) return undefined;
  const trimmed = value.trim();
  const angled = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed);
  if (!angled) return isEmailAddress(trimmed) ? { name: undefined, address: trimmed } : undefined;
  const [, rawName = '', address = ''] = angled;
  if (!isEmailAddress(address)) return undefined;
  if (rawName.trim() === '') return { name: undefined, address };
  const name = parseDisplayName(rawName);
  return name === undefined ? undefined : { name, address };
}

/** The mailbox as a header value; the name quoted (and escaped), so commas and dots stay in it. */
export function formatMailbox(mailbox: Mailbox): string {
  if (mailbox.name === undefined) return mailbox.address;
  return `"${mailbox.name.replace(/["\\]/g, '\\$&')}" <${mailbox.address}>`;
}

/**
 * The From of one message: the mail's own sender (a campaign's email_from) over the
 * transport's. A full mailbox is used as it is; a display name alone is combined with the
 * transport's address; anything unusable leaves the transport's sender.
 */
export function resolveSender(sender: string | null | undefined, transportFrom: string): string {
  if (sender === null || sender === undefined) return transportFrom;
  const full = parseMailbox(sender);
  if (full) return formatMailbox(full);
  const name = parseDisplayName(sender);
  const base = parseMailbox(transportFrom);
  if (name === undefined || base === undefined) return transportFrom;
  return formatMailbox({ name, address: base.address });
}
