import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../src/context.ts';
import type { Database, ItemRow, TokenStatus } from '../../src/db/schema.ts';
import type { ErrorCode } from '../../src/lib/errors.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { closeBatch } from '../../src/modules/platform/transactions/relayer-batches.ts';
import { assertError, type ErrorDetail } from '../assertions.ts';

/** Test helpers for the mint and transfer flows: items as a lock (and mints) would leave them. */

export interface ItemFixture {
  collectionId: string;
  organizationId: string;
  locked?: boolean;
  /** Default 1 when locked. */
  maxSupply?: bigint | null;
  tokenId?: bigint | null;
  tokenStatus?: TokenStatus;
  mintedSupply?: bigint;
  heldSupply?: bigint;
  /** Distinct creation times keep the creation order the order of the calls. */
  createdAt?: Date;
}

let clock = Date.now() - 3_600_000;

export async function insertItem(db: Kysely<Database>, fixture: ItemFixture): Promise<ItemRow> {
  const locked = fixture.locked ?? true;
  clock += 1;
  return db
    .insertInto('items')
    .values({
      id: uuidv7(),
      organization_id: fixture.organizationId,
      collection_id: fixture.collectionId,
      attributes: JSON.stringify({ name: 'item' }),
      locked,
      max_supply: fixture.maxSupply === undefined ? (locked ? '1' : null) : fixture.maxSupply,
      token_id: fixture.tokenId ?? null,
      token_status: fixture.tokenStatus ?? 'NOT_MINTED',
      minted_supply: fixture.mintedSupply ?? 0n,
      held_supply: fixture.heldSupply ?? 0n,
      created_at: fixture.createdAt ?? new Date(clock),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** `count` locked items with token ids from `firstTokenId`, in creation order. */
export async function insertItems(
  db: Kysely<Database>,
  count: number,
  fixture: Omit<ItemFixture, 'tokenId'> & { firstTokenId?: bigint | null },
): Promise<ItemRow[]> {
  const items: ItemRow[] = [];
  for (let i = 0; i < count; i++) {
    const first = fixture.firstTokenId;
    items.push(await insertItem(db, { ...fixture, tokenId: first == null ? null : first + BigInt(i) }));
  }
  return items;
}

/** Rows a failed request must not have left behind. */
export async function flowCounts(db: Kysely<Database>) {
  const count = async (table: 'mint_requests' | 'transfer_requests' | 'transactions') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const active = await db
    .selectFrom('item_reservations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('released_at', 'is', null)
    .executeTakeFirstOrThrow();
  const minting = await db
    .selectFrom('items')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('token_status', '=', 'MINTING')
    .executeTakeFirstOrThrow();
  return {
    mintRequests: await count('mint_requests'),
    transferRequests: await count('transfer_requests'),
    transactions: await count('transactions'),
    activeReservations: Number(active.n),
    minting: Number(minting.n),
  };
}

/** Asserts the request fails with the error and leaves nothing behind (flowCounts unchanged). */
export async function assertFailsWithoutTrace(
  db: Kysely<Database>,
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  code: ErrorCode,
): Promise<ErrorDetail> {
  const before = await flowCounts(db);
  const error = assertError(await send(), status, code);
  assert.deepEqual(await flowCounts(db), before, 'a failed request changes nothing');
  return error;
}

export function findItemRow(db: Kysely<Database>, id: string): Promise<ItemRow> {
  return db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Polls a request until it is COMPLETED or FAILED; returns it and every state seen on the way. */
export async function untilSettled<T extends { state: string }>(
  until: <R>(probe: () => Promise<R | undefined>, what: string) => Promise<R>,
  read: () => Promise<T>,
): Promise<{ request: T; seen: string[] }> {
  const seen: string[] = [];
  const request = await until(async () => {
    const current = await read();
    if (seen.at(-1) !== current.state) seen.push(current.state);
    return current.state === 'COMPLETED' || current.state === 'FAILED' ? current : undefined;
  }, 'the request to settle');
  return { request, seen };
}

/**
 * Closes every open batch transaction as the relayer would before sending it (its row locked, its
 * calldata composed from its records by the port, no longer open): for tests that read or settle
 * a batch's transaction without a relayer running.
 */
export async function closeOpenBatches(ctx: AppContext): Promise<void> {
  const open = await ctx.db.selectFrom('transactions').select('id').where('batch_open', '=', true).execute();
  for (const { id } of open) await ctx.db.transaction().execute((tx) => closeBatch(tx, ctx, id));
}
