import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { TestEnv } from '../harness.ts';

/** Test helpers for listings and purchase intents. */

export const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

export const FREE_LISTING = {
  currency: 'USD',
  price: '0',
  max_quantity_per_tx: 1,
  payment_providers: ['EMAIL_CLAIM'],
  policy: { type: 'FCFS' },
};

/** A listing created through the API; answers its body. */
export async function createListing(
  env: TestEnv,
  token: string,
  body: Record<string, unknown>,
): Promise<{ id: string; quantity_listed: number } & Record<string, unknown>> {
  const response = await env.call('POST', '/v1/listings', { token, body: { ...FREE_LISTING, ...body } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/**
 * A listing that also sells through CARD_PROVIDER, whose intents stay PENDING until confirmed.
 * The provider is added to the row directly, without the organization's card set-up: with an
 * in-memory provider in the registry (test/support/payment-sessions.ts) it stands for any
 * provider that confirms a payment later.
 */
export async function createPaidListing(
  env: TestEnv,
  token: string,
  body: Record<string, unknown>,
): Promise<{ id: string; quantity_listed: number } & Record<string, unknown>> {
  const listing = await createListing(env, token, body);
  await env.database.db
    .updateTable('listings')
    .set({ payment_providers: ['EMAIL_CLAIM', 'CARD_PROVIDER'] })
    .where('id', '=', listing.id)
    .execute();
  return listing;
}

/** The job queued with this key, if any. */
export async function queuedJob(
  env: TestEnv,
  key: string,
): Promise<{ task_identifier: string; run_at: Date } | undefined> {
  const result = await sql<{ task_identifier: string; run_at: Date }>`
    SELECT task_identifier, run_at FROM graphile_worker.jobs WHERE key = ${key}`.execute(env.database.db);
  return result.rows[0];
}

/** A listing's units held by PENDING intents and sold. */
export function listingCounters(env: TestEnv, listingId: string) {
  return env.database.db
    .selectFrom('listings')
    .select(['quantity_held', 'quantity_sold'])
    .where('id', '=', listingId)
    .executeTakeFirstOrThrow();
}

export function activeHolder(env: TestEnv, itemId: string) {
  return env.database.db
    .selectFrom('item_reservations')
    .select(['holder_id', 'kind'])
    .where('item_id', '=', itemId)
    .where('released_at', 'is', null)
    .executeTakeFirst();
}
