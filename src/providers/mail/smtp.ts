import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';
import { composeMessage } from './message.ts';
import { MailSendError, type MailTransport, type OutgoingMail } from './transport.ts';

/** A CUSTOM_SMTP integration's server: `secure` is implicit TLS, otherwise STARTTLS when offered. */
export interface SmtpServerSettings {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
}

export interface SmtpTlsOptions {
  /** Extra certificate authorities (PEM) trusted besides the system's (SMTP_TLS_CA_FILE). */
  readonly ca?: string | undefined;
}

// A server that stops answering must fail the attempt (and let the job queue retry) well within
// the outbox's delivery claim (five minutes), not after nodemailer's default of ten.
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

/**
 * Any SMTP server: the platform's `SMTP_URL` (`smtp://` or `smtps://`, credentials in the URL) or
 * an integration's settings. The message is composed once (message.ts) and sent as raw bytes.
 * Certificates are always verified.
 */
export function createSmtpTransport(
  target: string | SmtpServerSettings,
  tlsOptions: SmtpTlsOptions = {},
): MailTransport {
  const tls = tlsOptions.ca === undefined ? {} : { ca: [...rootCertificates, tlsOptions.ca] };
  const transporter =
    typeof target === 'string'
      ? nodemailer.createTransport({ url: target, ...TIMEOUTS, tls })
      : nodemailer.createTransport({
          host: target.host,
          port: target.port,
          secure: target.secure,
          ...(target.username !== undefined && {
            auth: { user: target.username, pass: target.password ?? '' },
          }),
          ...TIMEOUTS,
          tls,
        });
  return {
    name: 'smtp',
    async send(mail: OutgoingMail) {
      const { raw, envelope } = await composeMessage(mail);
      try {
        await transporter.sendMail({ envelope, raw });
      } catch (error) {
        throw smtpFailure(error);
      }
    },
    async close() {
      transporter.close();
    },
  };
}

/** An SMTP 5xx reply is permanent; 4xx replies, refused connections and timeouts are not. */
function smtpFailure(error: unknown): MailSendError {
  const code = (error as { responseCode?: unknown }).responseCode;
  const message = error instanceof Error ? error.message : String(error);
  const permanent = typeof code === 'number' && code >= 500 && code < 600;
  return new MailSendError(`SMTP: ${message}`, { permanent, cause: error });
}
