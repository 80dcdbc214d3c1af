import { type Static, Type } from '@sinclair/typebox';
import { CARD_PROVIDER_CONNECT_TYPES, CARD_PROVIDER_MODES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { Nullable, StringEnum, Uuid } from '../../../http/schemas.ts';

export const CardProviderMode = StringEnum(CARD_PROVIDER_MODES);
export const CardProviderConnectType = StringEnum(CARD_PROVIDER_CONNECT_TYPES);

/** Stripe's key and id formats; the mode is checked against the keys' `test`/`live` by the service. */
const PublishableKey = Type.String({
  pattern: '^pk_(test|live)_[A-Za-z0-9]+$',
  maxLength: 255,
  description: "The platform account's publishable key (pk_test_… or pk_live_…, as the mode)",
});
const SecretKey = Type.String({
  pattern: '^(sk|rk)_(test|live)_[A-Za-z0-9]+$',
  maxLength: 255,
  description: 'The secret (or restricted) key, sk_test_…/sk_live_… as the mode; write-only',
});
const WebhookSecret = (description: string) =>
  Type.String({ pattern: '^whsec_[A-Za-z0-9+/=_-]+$', maxLength: 255, description });
const AccountId = Type.String({ pattern: '^acct_[A-Za-z0-9]+$', maxLength: 255 });
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\x00-\\x1f\\x7f]*[^\\x00-\\x20\\x7f][^\\x00-\\x1f\\x7f]*$',
});
const SessionTimeoutMinutes = Type.Integer({
  minimum: 1,
  maximum: 1440,
  description: 'How long a card purchase intent holds its units, unless the listing says otherwise',
});
const FeePercentageBps = Type.Integer({ minimum: 0, maximum: 10000, description: 'Basis points' });
const Config = Type.Object({}, { additionalProperties: false, description: 'Reserved: `{}` or null' });

/** A full platform account, as platform admins see it (never its secrets). */
export const PlatformCardProviderAccount = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    mode: CardProviderMode,
    publishable_key: Type.String(),
    session_timeout_minutes: Type.Integer(),
    card_provider_account_id: Type.String(),
    fee_percentage_bps: Nullable(Type.Integer()),
    config: Nullable(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'PlatformCardProviderAccount', title: 'PlatformCardProviderAccount' },
);
export type PlatformCardProviderAccount = Static<typeof PlatformCardProviderAccount>;

/** A platform account as an organization sees it: whether it may set up on it. */
export const OrganizationCardProviderAccount = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    mode: CardProviderMode,
    publishable_key: Type.String(),
    enabled: Type.Boolean(),
  },
  { $id: 'OrganizationCardProviderAccount', title: 'OrganizationCardProviderAccount' },
);
export type OrganizationCardProviderAccount = Static<typeof OrganizationCardProviderAccount>;

export const CardProviderStatus = Type.Object(
  {
    account_id: Nullable(
      Type.String({ description: "The organization's connected account; null before set-up" }),
    ),
    connect_type: Nullable(CardProviderConnectType),
    setup_complete: Type.Boolean({
      description: "The connected account's charges_enabled and details_submitted, both true",
    }),
    platform_card_provider_account: Nullable(Type.Ref(OrganizationCardProviderAccount)),
  },
  { $id: 'CardProviderStatus', title: 'CardProviderStatus' },
);
export type CardProviderStatus = Static<typeof CardProviderStatus>;

export const CreatePlatformAccountBody = Type.Object(
  {
    name: Name,
    mode: CardProviderMode,
    publishable_key: PublishableKey,
    secret_key: SecretKey,
    card_provider_account_id: { ...AccountId, description: "The platform's own account id (acct_…)" },
    session_timeout_minutes: SessionTimeoutMinutes,
    account_webhook_endpoint_secret: Type.Optional(
      Nullable(WebhookSecret("Signing secret of the platform's account-events endpoint; write-only")),
    ),
    connect_webhook_endpoint_secret: Type.Optional(
      Nullable(WebhookSecret("Signing secret of the platform's Connect-events endpoint; write-only")),
    ),
    fee_percentage_bps: Type.Optional(Nullable(FeePercentageBps)),
    config: Type.Optional(Nullable(Config)),
  },
  { additionalProperties: false },
);
export type CreatePlatformAccountBody = Static<typeof CreatePlatformAccountBody>;

export const EditPlatformAccountBody = Type.Object(
  {
    name: Type.Optional(Name),
    mode: Type.Optional(CardProviderMode),
    publishable_key: Type.Optional(PublishableKey),
    secret_key: Type.Optional(SecretKey),
    card_provider_account_id: Type.Optional(AccountId),
    session_timeout_minutes: Type.Optional(SessionTimeoutMinutes),
    account_webhook_endpoint_secret: Type.Optional(Nullable(WebhookSecret('write-only; null removes it'))),
    connect_webhook_endpoint_secret: Type.Optional(Nullable(WebhookSecret('write-only; null removes it'))),
    fee_percentage_bps: Type.Optional(Nullable(FeePercentageBps)),
    config: Type.Optional(Nullable(Config)),
  },
  { additionalProperties: false },
);
export type EditPlatformAccountBody = Static<typeof EditPlatformAccountBody>;

export const PlatformAccountParams = Type.Object(
  { platform_card_provider_account_id: Uuid },
  { additionalProperties: false },
);

export const OrganizationPlatformAccountParams = Type.Object(
  { organization_id: Uuid, platform_card_provider_account_id: Uuid },
  { additionalProperties: false },
);

export const ListPlatformAccountsQuery = Type.Object(
  { ...listQueryProperties('standard'), mode: Type.Optional(CardProviderMode) },
  { additionalProperties: false },
);
export const ListOrganizationAccountsQuery = Type.Object(
  { ...listQueryProperties('standard'), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const AssociateBody = Type.Object(
  { enabled: Type.Boolean({ description: 'true: the organization may set up on this platform account' }) },
  { additionalProperties: false },
);

export const SetupBody = Type.Object(
  {
    connect_type: StringEnum(CARD_PROVIDER_CONNECT_TYPES, {
      description: 'Only STANDARD is supported (400 otherwise)',
    }),
    platform_card_provider_account_id: Uuid,
    return_url: Type.Optional(
      Nullable(
        Type.String({
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2048,
          description:
            'Where the provider sends the organization back after onboarding (and when the link expired); default the service',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

export const SetupResult = Type.Object(
  { url: Type.String({ description: "The provider's onboarding link for the connected account" }) },
  { title: 'CardProviderSetup' },
);

export const CARD_PROVIDER_COMMANDS = ['REFRESH', 'DISCONNECT'] as const;
export const CommandBody = Type.Object(
  {
    command: StringEnum(CARD_PROVIDER_COMMANDS, {
      description:
        "REFRESH: read the connected account's state from the provider; DISCONNECT: forget the connected account",
    }),
  },
  { additionalProperties: false },
);
export type CardProviderCommand = (typeof CARD_PROVIDER_COMMANDS)[number];
