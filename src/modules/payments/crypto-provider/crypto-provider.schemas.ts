import { type Static, Type } from '@sinclair/typebox';
import { CRYPTO_PROVIDER_NETWORKS } from '../../../db/enums.ts';
import { Nullable, StringEnum } from '../../../http/schemas.ts';

export const CryptoProviderNetwork = StringEnum(CRYPTO_PROVIDER_NETWORKS, {
  description: 'The network payment links are paid on (USDC)',
});

export const PutCryptoProviderBody = Type.Object(
  {
    api_key_id: Type.String({
      maxLength: 255,
      pattern: '^[^\\x00-\\x20\\x7f]+$',
      description: "The CDP API key's id (a UUID or organizations/…/apiKeys/…)",
    }),
    api_key_secret: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description:
        "The CDP API key's private key: EC P-256 (ECDSA, ES256) in PEM, PKCS#8 or SEC1. Write-only: stored encrypted, never returned",
    }),
    webhook_secret: Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        "The secret of the organization's payment-link webhook subscription (verifies X-Hook0-Signature). Write-only",
    }),
    network: Type.Optional(
      StringEnum(CRYPTO_PROVIDER_NETWORKS, {
        default: 'base',
        description: 'The network payment links are paid on (USDC); default base',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutCryptoProviderBody = Static<typeof PutCryptoProviderBody>;

export const CryptoProvider = Type.Object(
  {
    configured: Type.Boolean({ description: 'The organization can sell through CRYPTO_PROVIDER' }),
    network: Nullable(CryptoProviderNetwork),
    webhook_url: Type.String({
      description: "Where the organization's payment-link webhook subscription must point",
    }),
  },
  { $id: 'CryptoProvider', title: 'CryptoProvider' },
);
export type CryptoProvider = Static<typeof CryptoProvider>;
