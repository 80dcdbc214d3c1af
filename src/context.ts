import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { CredentialCache } from './access/credential-cache.ts';
import { type ChainClients, createChainClients } from './chain/clients.ts';
import type { Database } from './db/schema.ts';
import type { Config } from './lib/config.ts';
import { createKeyring, type Keyring } from './lib/secrets.ts';
import type { CardPayments } from './providers/card/card-payments.ts';
import { createStripeCardPayments } from './providers/card/stripe.ts';
import { createCoinbasePayments } from './providers/crypto/coinbase.ts';
import type { CryptoPayments } from './providers/crypto/crypto-payments.ts';
import type { MailTransports } from './providers/mail/transport.ts';
import { createMailTransports } from './providers/mail/transports.ts';
import { createWebhookSender, type WebhookSender } from './providers/webhooks/sender.ts';

/**
 * Everything of the process that code outside it may use, built once at start (src/service.ts)
 * and passed in, never imported as a global: the database, configuration and secrets, and every
 * client of the outside world, each behind a small interface of src/providers/ or src/chain/.
 */
export interface AppContext {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly keyring: Keyring;
  readonly logger: Logger;
  /** One JSON-RPC client per registered network, reused across requests and jobs. */
  readonly chain: ChainClients;
  /** The transport and sender of each organization's mail; closed when the process stops. */
  readonly mail: MailTransports;
  /** Card sales (CARD_PROVIDER: Stripe at STRIPE_API_BASE); platform accounts hold the keys. */
  readonly cardPayments: CardPayments;
  /**
   * Crypto sales (CRYPTO_PROVIDER): Coinbase Business payment links at COINBASE_BUSINESS_API_BASE,
   * each call signed with the organization's own API key (modules/payments/crypto-provider).
   */
  readonly cryptoPayments: CryptoPayments;
  /** POSTs to organizations' webhook endpoints, refusing private addresses unless allowed. */
  readonly webhooks: WebhookSender;
  /**
   * Principals of recently seen credentials (AUTH_CACHE_TTL), invalidated across instances by
   * LISTEN/NOTIFY; serves nothing until `credentials.listen` (the API role, at start) and is
   * closed when the process stops.
   */
  readonly credentials: CredentialCache;
}

/**
 * What a service receives besides its executor: the context without the database handle, so a
 * service runs its SQL on the executor its caller gives it (the caller owns the transaction).
 * The one convention for services: `fn(db: Executor, deps: Deps, …)`, `deps` only when more than
 * the database is needed. AppContext is a Deps, so routes pass `ctx`.
 */
export type Deps = Omit<AppContext, 'db'>;

/** The context of a process (or a test) over an open database; every outside-world client is new. */
export function createAppContext(config: Config, db: Kysely<Database>, logger: Logger): AppContext {
  const keyring = createKeyring(config.secretKey);
  return {
    config,
    db,
    keyring,
    logger,
    chain: createChainClients(),
    mail: createMailTransports(config, db, keyring),
    cardPayments: createStripeCardPayments({ apiBase: config.card.stripeApiBase }),
    cryptoPayments: createCoinbasePayments(config.cryptoProvider.apiBase),
    webhooks: createWebhookSender({ allowPrivateUrls: config.webhooks.allowPrivateUrls }),
    credentials: new CredentialCache(config.authCacheTtlSeconds),
  };
}
