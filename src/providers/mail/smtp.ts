import nodemailer from 'nodemailer';
import type { MailTransport, OutgoingMail } from './transport.ts';

/** Any SMTP server, configured by an `smtp://` or `smtps://` URL (credentials in the URL). */
export function createSmtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url);
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
