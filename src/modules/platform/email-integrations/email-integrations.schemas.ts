import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { EMAIL_PROVIDERS } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Email, Nullable, StringEnum, Uuid } from '../../../http/schemas.ts';

export const EmailProvider = StringEnum(EMAIL_PROVIDERS);
export type EmailProvider = Static<typeof EmailProvider>;

// Checked again by address.ts parseMailbox (display-name rules, no control characters).
const MailboxText = Type.String({
  minLength: 3,
  maxLength: 320,
  description: '`address` or `Name <address>`',
});
const Hostname = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern:
    // The length is maxLength's: no lookahead, which not every client's regular expressions read.
    '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
});
const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 1024, description });

const common = {
  email_from: MailboxText,
  email_reply_to: Type.Optional(Nullable(MailboxText)),
};

/** API_MAIL_PROVIDER (Mailgun). */
export const ApiMailConfig = Type.Object(
  {
    ...common,
    domain: Hostname,
    api_key: Secret('Mailgun API key; write-only'),
    region: StringEnum(['US', 'EU'] as const),
  },
  { additionalProperties: false, title: 'ApiMailProviderConfig' },
);

/** CLOUD_MAIL_PROVIDER (Amazon SES v2). */
export const CloudMailConfig = Type.Object(
  {
    ...common,
    region: Type.String({
      pattern: '^[a-z]{2}(?:-[a-z]+)+-[0-9]{1,2}$',
      maxLength: 32,
      description: 'AWS region name, e.g. us-east-1',
    }),
    access_key_id: Type.String({ pattern: '^[A-Z0-9]{16,128}$' }),
    secret_access_key: Secret('write-only'),
  },
  { additionalProperties: false, title: 'CloudMailProviderConfig' },
);

/** CUSTOM_SMTP. */
export const SmtpConfig = Type.Object(
  {
    ...common,
    host: Hostname,
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    username: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
    password: Type.Optional(Nullable(Secret('write-only'))),
    secure: Type.Boolean({
      description: 'true: implicit TLS (port 465); false: STARTTLS when the server offers it',
    }),
  },
  { additionalProperties: false, title: 'CustomSmtpConfig' },
);

/** Each provider's config and the name of its one secret field (write-only, stored encrypted). */
export const PROVIDER_CONFIGS: Record<EmailProvider, { schema: TSchema; secret: string }> = {
  API_MAIL_PROVIDER: { schema: ApiMailConfig, secret: 'api_key' },
  CLOUD_MAIL_PROVIDER: { schema: CloudMailConfig, secret: 'secret_access_key' },
  CUSTOM_SMTP: { schema: SmtpConfig, secret: 'password' },
};

const ConfigInput = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'By provider: API_MAIL_PROVIDER {email_from, email_reply_to?, domain, api_key, region: US|EU}; CLOUD_MAIL_PROVIDER {email_from, email_reply_to?, region, access_key_id, secret_access_key}; CUSTOM_SMTP {email_from, email_reply_to?, host, port, username?, password?, secure}. Unknown fields are a 400.',
  },
);

export const EmailIntegration = Type.Object(
  {
    id: Uuid,
    organization_id: Uuid,
    provider: EmailProvider,
    config: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The config without its secret (api_key, secret_access_key, password)',
      },
    ),
    active: Type.Boolean(),
    last_error: Nullable(Type.String()),
    last_error_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'EmailIntegration', title: 'EmailIntegration' },
);
export type EmailIntegration = Static<typeof EmailIntegration>;

export const ListEmailIntegrationsQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    provider: Type.Optional(EmailProvider),
    organization_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const CreateEmailIntegrationBody = Type.Object(
  {
    provider: EmailProvider,
    config: ConfigInput,
    organization_id: Type.Optional(
      Nullable({ ...Uuid, description: "Platform admins only; default the caller's organization" }),
    ),
  },
  { additionalProperties: false },
);
export type CreateEmailIntegrationBody = Static<typeof CreateEmailIntegrationBody>;

/** A config field given at the top level of an edit: any provider's, null to remove an optional one. */
const EditedField = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

/**
 * An edit takes the config's fields at the top level of the body, as the spec says ("any
 * parameters originally given in the config, at config level"), or nested in `config`; not both.
 * Which fields the integration's provider takes is checked against its config (400 otherwise).
 */
export const EditEmailIntegrationBody = Type.Object(
  {
    config: Type.Optional({
      ...ConfigInput,
      description:
        "Any of the provider's config fields, merged into the current config (null removes an optional one); the provider cannot change. The same fields may be given at the top level of the body instead",
    }),
    active: Type.Optional(Type.Boolean({ description: 'Platform admins only (403 otherwise)' })),
    email_from: EditedField(MailboxText),
    email_reply_to: EditedField(MailboxText),
    domain: EditedField(Hostname),
    api_key: EditedField(Secret('API_MAIL_PROVIDER: write-only')),
    region: EditedField(
      Type.String({
        minLength: 2,
        maxLength: 32,
        description: 'API_MAIL_PROVIDER: US|EU; CLOUD_MAIL_PROVIDER: an AWS region',
      }),
    ),
    access_key_id: EditedField(Type.String({ pattern: '^[A-Z0-9]{16,128}$' })),
    secret_access_key: EditedField(Secret('CLOUD_MAIL_PROVIDER: write-only')),
    host: EditedField(Hostname),
    port: EditedField(Type.Integer({ minimum: 1, maximum: 65535 })),
    username: EditedField(Type.String({ minLength: 1, maxLength: 256 })),
    password: EditedField(Secret('CUSTOM_SMTP: write-only')),
    secure: EditedField(Type.Boolean()),
  },
  {
    additionalProperties: false,
    description:
      "The config's fields to change, at the top level or in `config` (merged into the current config; null removes an optional one), and `active`",
  },
);
export type EditEmailIntegrationBody = Static<typeof EditEmailIntegrationBody>;

export const EmailIntegrationParams = Type.Object({ integration_id: Uuid }, { additionalProperties: false });

export const TestEmailIntegrationBody = Type.Object({ to: Email }, { additionalProperties: false });

export const TestEmailIntegrationResult = Type.Object(
  { delivered: Type.Literal(true) },
  { title: 'EmailIntegrationTestResult' },
);
