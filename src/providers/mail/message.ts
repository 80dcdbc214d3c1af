import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { parseMailbox } from './address.ts';
import { MailSendError, type OutgoingMail } from './transport.ts';

export interface ComposedMessage {
  /** The whole MIME message, as every transport hands it on. */
  readonly raw: Buffer;
  /** SMTP envelope: the bare sender address and the recipient. */
  readonly envelope: { readonly from: string; readonly to: string[] };
}

/**
 * Builds the MIME message once (HTML and text alternatives, From with its display name,
 * Reply-To, the stable Message-ID), so SMTP, Mailgun and SES send the same bytes.
 */
export async function composeMessage(mail: OutgoingMail): Promise<ComposedMessage> {
  const from = parseMailbox(mail.from);
  if (!from) throw new MailSendError(`invalid sender ${JSON.stringify(mail.from)}`, { permanent: true });
  const replyTo = mail.replyTo === undefined ? undefined : parseMailbox(mail.replyTo);
  const composer = new MailComposer({
    from: { name: from.name ?? '', address: from.address },
    ...(replyTo && { replyTo: { name: replyTo.name ?? '', address: replyTo.address } }),
    to: mail.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    messageId: mail.messageId,
  });
  const raw = await composer.compile().build();
  return { raw, envelope: { from: from.address, to: [mail.to] } };
}
