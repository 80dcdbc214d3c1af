import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { composeMessage } from './message.ts';
import { MailSendError, type MailTransport, type OutgoingMail } from './transport.ts';

export interface SesSettings {
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * CLOUD_MAIL_PROVIDER: Amazon SES v2 SendEmail with the composed message as Content.Raw, signed
 * for the integration's region and keys; `endpoint` (SES_ENDPOINT) replaces the region's.
 * The SDK does not retry: the outbox does, with its own backoff and within its claim.
 */
export function createSesTransport(settings: SesSettings, endpoint: string | undefined): MailTransport {
  const client = new SESv2Client({
    region: settings.region,
    ...(endpoint !== undefined && { endpoint }),
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 30_000, requestTimeout: 60_000 },
  });
  return {
    name: 'ses',
    async send(mail: OutgoingMail) {
      const { raw, envelope } = await composeMessage(mail);
      try {
        await client.send(
          new SendEmailCommand({
            FromEmailAddress: envelope.from,
            Destination: { ToAddresses: envelope.to },
            Content: { Raw: { Data: raw } },
          }),
        );
      } catch (error) {
        throw sesFailure(error);
      }
    },
    async close() {
      client.destroy();
    },
  };
}

// Quota and rate errors SES answers with a 4xx: waiting helps.
const THROTTLED = new Set(['TooManyRequestsException', 'LimitExceededException', 'ThrottlingException']);

function sesFailure(error: unknown): MailSendError {
  const { name, message, $metadata } = error as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = $metadata?.httpStatusCode;
  const reason = `${name ?? 'Error'}: ${message ?? String(error)}`;
  if (typeof status !== 'number') {
    return new MailSendError(`SES could not be reached: ${reason}`, { permanent: false, cause: error });
  }
  const permanent = status >= 400 && status < 500 && status !== 429 && !THROTTLED.has(name ?? '');
  return new MailSendError(`SES answered ${status}: ${reason}`, { permanent, cause: error });
}
