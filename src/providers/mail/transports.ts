import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Config } from '../../lib/config.ts';
import type { Keyring } from '../../lib/secrets.ts';
import { createMailboxTransport } from './mailbox.ts';
import { createMailgunTransport, type MailgunSettings } from './mailgun.ts';
import { createSesTransport } from './ses.ts';
import { createSmtpTransport } from './smtp.ts';
import type { IntegrationSettings, MailRoute, MailTransport, MailTransports } from './transport.ts';

/** The platform's sender: no-reply at the host of PUBLIC_BASE_URL. */
export function platformFromAddress(config: Pick<Config, 'http'>): string {
  return `Token Issuance Service <no-reply@${new URL(config.http.publicBaseUrl).hostname}>`;
}

type MailConfig = Pick<Config, 'http' | 'smtpUrl' | 'mail'>;

const RETIRED_CLIENT_GRACE_MS = 3 * 60_000;

/**
 * An organization's mail goes through its ACTIVE email integration, else the platform transport
 * (SMTP_URL, else the local mailbox). One indexed read per message finds the integration; its
 * client is built once per (integration, updated_at) and closed when the integration changes,
 * stops being active or is deleted.
 */
export function createMailTransports(
  config: MailConfig,
  db: Kysely<Database>,
  keyring: Keyring,
): MailTransports {
  const platform: MailRoute = {
    transport: config.smtpUrl
      ? createSmtpTransport(config.smtpUrl, { ca: config.mail.smtpTlsCa })
      : createMailboxTransport(db),
    from: platformFromAddress(config),
    replyTo: undefined,
    integrationId: null,
  };
  const cache = new Map<string, { version: string; route: MailRoute }>();

  const forIntegration = (integration: IntegrationSettings): MailRoute => ({
    transport: integrationTransport(config, integration),
    from: String(integration.config.email_from),
    replyTo:
      typeof integration.config.email_reply_to === 'string' ? integration.config.email_reply_to : undefined,
    integrationId: integration.id,
  });

  // A replaced client is closed once any send that took it has had its time (the SMTP and API
  // clients give up within two minutes), or when the process stops.
  const retired = new Set<MailTransport>();
  const evict = (organizationId: string) => {
    const cached = cache.get(organizationId);
    if (!cached) return;
    cache.delete(organizationId);
    const { transport } = cached.route;
    retired.add(transport);
    setTimeout(() => {
      retired.delete(transport);
      void transport.close().catch(() => {});
    }, RETIRED_CLIENT_GRACE_MS).unref();
  };

  return {
    async forOrganization(organizationId) {
      if (organizationId === null) return platform;
      const row = await db
        .selectFrom('email_integrations')
        .select(['id', 'provider', 'config', 'secret_encrypted', 'updated_at'])
        .where('organization_id', '=', organizationId)
        .where('active', '=', true)
        .executeTakeFirst();
      if (!row) {
        evict(organizationId);
        return platform;
      }
      const version = `${row.id}@${row.updated_at.getTime()}`;
      const cached = cache.get(organizationId);
      if (cached?.version === version) return cached.route;
      evict(organizationId);
      const route = forIntegration({
        id: row.id,
        provider: row.provider,
        config: row.config,
        secret: row.secret_encrypted === null ? null : keyring.decrypt(row.secret_encrypted),
      });
      cache.set(organizationId, { version, route });
      return route;
    },
    forIntegration,
    async close() {
      const transports = [
        platform.transport,
        ...[...cache.values()].map((c) => c.route.transport),
        ...retired,
      ];
      cache.clear();
      retired.clear();
      await Promise.allSettled(transports.map((t) => t.close()));
    },
  };
}

function integrationTransport(config: MailConfig, integration: IntegrationSettings): MailTransport {
  const c = integration.config;
  switch (integration.provider) {
    case 'API_MAIL_PROVIDER':
      return createMailgunTransport(
        {
          domain: String(c.domain),
          apiKey: integration.secret ?? '',
          region: c.region as MailgunSettings['region'],
        },
        config.mail.mailgunApiBase,
      );
    case 'CLOUD_MAIL_PROVIDER':
      return createSesTransport(
        {
          region: String(c.region),
          accessKeyId: String(c.access_key_id),
          secretAccessKey: integration.secret ?? '',
        },
        config.mail.sesEndpoint,
      );
    case 'CUSTOM_SMTP':
      return createSmtpTransport(
        {
          host: String(c.host),
          port: Number(c.port),
          secure: c.secure === true,
          username: typeof c.username === 'string' ? c.username : undefined,
          password: integration.secret ?? undefined,
        },
        { ca: config.mail.smtpTlsCa },
      );
    default:
      return integration.provider satisfies never;
  }
}

/** Every organization's mail through one transport and sender (a test's stand-in). */
export function platformMailTransports(transport: MailTransport, from: string): MailTransports {
  const route: MailRoute = { transport, from, replyTo: undefined, integrationId: null };
  return {
    async forOrganization() {
      return route;
    },
    forIntegration() {
      // The caller closes what it is given; the shared transport stays open.
      return {
        ...route,
        transport: { name: transport.name, send: (m) => transport.send(m), close: async () => {} },
      };
    },
    close: () => transport.close(),
  };
}
