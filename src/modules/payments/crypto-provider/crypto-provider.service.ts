import type { Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { CRYPTO_PROVIDER_NETWORKS } from '../../../db/enums.ts';
import type { Executor } from '../../../db/executor.ts';
import { ApiError } from '../../../lib/errors.ts';
import { parseApiKeySecret } from '../../../providers/crypto/coinbase.ts';
import type { CryptoCredentials } from '../../../providers/crypto/crypto-payments.ts';
import * as repo from './crypto-provider.repository.ts';
import type { CryptoProvider, PutCryptoProviderBody } from './crypto-provider.schemas.ts';

export type CryptoProviderNetwork = (typeof CRYPTO_PROVIDER_NETWORKS)[number];
export const DEFAULT_CRYPTO_NETWORK: CryptoProviderNetwork = 'base';

/** The organization's crypto provider with its secrets decrypted: for the client and the webhook only. */
export interface CryptoAccount {
  readonly organizationId: string;
  readonly credentials: CryptoCredentials;
  readonly network: string;
  readonly webhookSecret: string;
}

/** Where the organization's payment-link webhook subscription points (PUBLIC_BASE_URL). */
export function cryptoWebhookUrl(publicBaseUrl: string, organizationId: string): string {
  return `${publicBaseUrl}/v1/webhooks/crypto-provider/${organizationId}`;
}

/** The caller's organization's set-up, without its secrets (they are write-only). */
export async function getCryptoProvider(
  db: Executor,
  deps: Pick<Deps, 'config'>,
  principal: Principal,
): Promise<CryptoProvider> {
  const row = await repo.findCryptoProviderConfig(db, principal.organizationId);
  return {
    configured: row !== undefined,
    network: (row?.network ?? null) as CryptoProviderNetwork | null,
    webhook_url: cryptoWebhookUrl(deps.config.http.publicBaseUrl, principal.organizationId),
  };
}

/**
 * Sets (or replaces) the caller's organization's CDP API key and webhook secret. The key must be
 * an EC P-256 private key (CDP's ECDSA keys; payment-link calls are signed ES256): it is stored
 * as PKCS#8 PEM, encrypted, like the webhook secret.
 */
export async function putCryptoProvider(
  db: Executor,
  deps: Pick<Deps, 'config' | 'keyring'>,
  principal: Principal,
  body: PutCryptoProviderBody,
): Promise<CryptoProvider> {
  const key = parseApiKeySecret(body.api_key_secret);
  if (!key)
    throw new ApiError('VALIDATION_FAILED', 'api_key_secret is not an EC P-256 private key in PEM', {
      fields: [
        {
          path: '/api_key_secret',
          message: 'must be the PEM of an EC P-256 (ECDSA) private key, PKCS#8 (BEGIN PRIVATE KEY)',
        },
      ],
    });
  const pkcs8 = key.export({ format: 'pem', type: 'pkcs8' }).toString();
  const row = await repo.upsertCryptoProviderConfig(db, {
    organization_id: principal.organizationId,
    api_key_id: body.api_key_id,
    api_key_secret_encrypted: deps.keyring.encrypt(pkcs8),
    webhook_secret_encrypted: deps.keyring.encrypt(body.webhook_secret),
    network: body.network ?? DEFAULT_CRYPTO_NETWORK,
  });
  return {
    configured: true,
    network: row.network as CryptoProviderNetwork,
    webhook_url: cryptoWebhookUrl(deps.config.http.publicBaseUrl, principal.organizationId),
  };
}

/**
 * Forgets the set-up: CRYPTO_PROVIDER listings stop selling (NOT_READY) and the webhook refuses
 * events (no secret to verify them). Payment links already opened stay at the provider.
 */
export async function deleteCryptoProvider(db: Executor, principal: Principal): Promise<void> {
  await repo.deleteCryptoProviderConfig(db, principal.organizationId);
}

export async function findCryptoAccount(
  db: Executor,
  deps: Pick<Deps, 'keyring'>,
  organizationId: string,
): Promise<CryptoAccount | undefined> {
  const row = await repo.findCryptoProviderConfig(db, organizationId);
  if (!row) return undefined;
  return {
    organizationId,
    credentials: {
      apiKeyId: row.api_key_id,
      apiKeySecret: deps.keyring.decrypt(row.api_key_secret_encrypted),
    },
    network: row.network,
    webhookSecret: deps.keyring.decrypt(row.webhook_secret_encrypted),
  };
}

/** The account, or 422 CRYPTO_PROVIDER_NOT_READY. */
export async function getCryptoAccount(
  db: Executor,
  deps: Pick<Deps, 'keyring'>,
  organizationId: string,
): Promise<CryptoAccount> {
  const account = await findCryptoAccount(db, deps, organizationId);
  if (!account)
    throw new ApiError(
      'CRYPTO_PROVIDER_NOT_READY',
      'the organization has no crypto provider: PUT /v1/crypto-provider first',
    );
  return account;
}
