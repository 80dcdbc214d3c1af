import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import { createMailboxTransport } from './mailbox.ts';
import { createSmtpTransport } from './smtp.ts';
import type { MailTransport, MailTransports } from './transport.ts';

/** The platform's sender: no-reply at the host of PUBLIC_BASE_URL. */
export function platformFromAddress(config: Config): string {
  return `Token Issuance Service <no-reply@${new URL(config.http.publicBaseUrl).hostname}>`;
}

/** The platform transport (SMTP_URL, else the local mailbox) and sender, for every organization. */
export function createMailTransports(config: Config, db: Kysely<Database>): MailTransports {
  return platformMailTransports(
    config.smtpUrl ? createSmtpTransport(config.smtpUrl) : createMailboxTransport(db),
    platformFromAddress(config),
  );
}

/** Every organization's mail through one transport and sender (also a test's stand-in). */
export function platformMailTransports(transport: MailTransport, from: string): MailTransports {
  return {
    async forOrganization() {
      return { transport, from };
    },
    close: () => transport.close(),
  };
}
