import FormData from 'form-data';
import Mailgun from 'mailgun.js';
import { composeMessage } from './message.ts';
import { MailSendError, type MailTransport, type OutgoingMail } from './transport.ts';

export const MAILGUN_BASES = { US: 'https://api.mailgun.net', EU: 'https://api.eu.mailgun.net' } as const;

export interface MailgunSettings {
  readonly domain: string;
  readonly apiKey: string;
  readonly region: keyof typeof MAILGUN_BASES;
}

/**
 * API_MAIL_PROVIDER: Mailgun's MIME endpoint (`POST /v3/{domain}/messages.mime`, `to` and the
 * composed message as the `message` file), at the region's host unless `apiBase`
 * (MAILGUN_API_BASE) says otherwise.
 */
export function createMailgunTransport(
  settings: MailgunSettings,
  apiBase: string | undefined,
): MailTransport {
  const client = new Mailgun(FormData).client({
    username: 'api',
    key: settings.apiKey,
    url: apiBase ?? MAILGUN_BASES[settings.region],
    timeout: 60_000,
  });
  return {
    name: 'mailgun',
    async send(mail: OutgoingMail) {
      const { raw } = await composeMessage(mail);
      try {
        await client.messages.create(settings.domain, { to: [mail.to], message: raw });
      } catch (error) {
        throw mailgunFailure(error);
      }
    },
    async close() {},
  };
}

// mailgun.js reports a request that got no answer as status 400 with the network error's code
// as its message: such a failure is not Mailgun's refusal and is retried.
const NETWORK_CODE = /^(E[A-Z0-9_]+|ERR_(?!BAD_REQUEST$|BAD_RESPONSE$)[A-Z0-9_]+)$/;

function mailgunFailure(error: unknown): MailSendError {
  const { status, message, details } = error as { status?: unknown; message?: unknown; details?: unknown };
  const reason = [message, details].filter((p) => typeof p === 'string' && p !== '').join(': ');
  const network = typeof message === 'string' && NETWORK_CODE.test(message);
  if (typeof status !== 'number' || network) {
    return new MailSendError(`Mailgun could not be reached: ${reason || String(error)}`, {
      permanent: false,
      cause: error,
    });
  }
  const permanent = status >= 400 && status < 500 && status !== 429;
  return new MailSendError(`Mailgun answered ${status}: ${reason}`, { permanent, cause: error });
}
