import nodemailer from 'nodemailer';
import type { MailTransport, OutgoingMail } from './transport.ts';

/**
 * Any SMTP server, configured by an `smtp://` or `smtps://` URL (credentials in the URL).
 * A server that stops answering must fail the attempt (and let the job queue retry) well within
 * the outbox's delivery claim (five minutes), not after nodemailer's default of ten.
 */
export function createSmtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  });
  return {
    name: 'smtp',
    async send(mail: OutgoingMail) {
      await transporter.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        messageId: mail.messageId,
      });
    },
    async close() {
      transporter.close();
    },
  };
}
