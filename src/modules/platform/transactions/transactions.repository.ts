import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  TransactionAttemptRow,
  TransactionRow,
  TransactionState,
  TransactionsTable,
  TransactionType,
} from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';
import { enqueue, enqueueMany } from '../../../jobs/enqueue.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { transactionSettledJob } from './transactions.jobs.ts';

/** NOTIFY channel the relayer listens on, so new work starts without waiting for a poll. */
export const TRANSACTIONS_CHANNEL = 'transactions';

/**
 * At most one NOTIFY per this many milliseconds from this process. PostgreSQL serialises the
 * commits of notifying transactions (a database-wide lock held through the commit's flush), so
 * one per queued row took concurrent callers down to one flush at a time (1,000 rows from 10
 * callers: 1.27 s against 0.3-0.6 s without). Every pass of the relayer covers every sender, so
 * one wake-up serves all the rows of a burst; a row queued just after one is taken by the pass it
 * started, by the next one a later notification asks for, or at the relayer's poll.
 */
const NOTIFY_EVERY_MS = 50;
let notifiedAt = 0;

export interface NewTransaction {
  organizationId: string | null;
  networkId: number;
  walletId: string;
  from: string;
  type: TransactionType;
  to: string | null;
  data: string;
  value: bigint;
  gasLimit?: bigint;
  /** An open batch, its first entries counted: records of the same key may join it. */
  batch?: { key: string; size: number; cap: number };
}

export async function insertTransaction(db: Executor, tx: NewTransaction): Promise<TransactionRow> {
  const row = await insertTransactionOn(db, tx, false);
  if (!row) throw new Error(`network ${tx.networkId} not found`);
  return row;
}

/**
 * Inserts the row and notifies the relayer in one statement (one round trip), when its network
 * exists and, with `enabledOnly`, is enabled; undefined otherwise.
 */
export async function insertTransactionOn(
  db: Executor,
  tx: NewTransaction,
  enabledOnly: boolean,
): Promise<TransactionRow | undefined> {
  const notify = Date.now() - notifiedAt >= NOTIFY_EVERY_MS;
  if (notify) notifiedAt = Date.now();
  const result = await sql<TransactionRow & { notified?: unknown }>`
    WITH inserted AS (
      INSERT INTO transactions
        (id, organization_id, network_id, wallet_id, from_address, type, to_address, data, value, gas_limit,
         batch_key, batch_open, batch_size, batch_cap)
      SELECT ${uuidv7()}::uuid, ${tx.organizationId}::uuid, n.id, ${tx.walletId}::uuid, ${tx.from}, ${tx.type},
        ${tx.to}, ${tx.data}, ${tx.value.toString()}::numeric, ${tx.gasLimit?.toString() ?? null}::numeric,
        ${tx.batch?.key ?? null}, ${tx.batch !== undefined}, ${tx.batch?.size ?? 0}, ${tx.batch?.cap ?? 0}
      FROM networks AS n
      WHERE n.id = ${tx.networkId} ${enabledOnly ? sql`AND n.enabled` : sql``}
      RETURNING *
    )
    SELECT inserted.*${notify ? sql`, pg_notify(${TRANSACTIONS_CHANNEL}, ${`${tx.networkId}:${tx.from}`}) AS notified` : sql``}
    FROM inserted`.execute(db);
  const first = result.rows[0];
  if (!first) return undefined;
  const { notified: _, ...row } = first;
  return row;
}

export function findTransaction(db: Executor, id: string): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findTransactionForUpdate(db: Tx, id: string): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function updateTransaction(
  db: Executor,
  id: string,
  patch: Partial<{ [K in keyof TransactionsTable]: unknown }>,
): Promise<TransactionRow> {
  return db
    .updateTable('transactions')
    .set({ ...(patch as object), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listAttempts(db: Executor, transactionId: string): Promise<TransactionAttemptRow[]> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Attempt hashes of many rows at once, newest first per row. */
export async function attemptHashes(db: Executor, transactionIds: string[]): Promise<Map<string, string[]>> {
  const byRow = new Map<string, string[]>();
  if (transactionIds.length === 0) return byRow;
  const rows = await db
    .selectFrom('transaction_attempts')
    .select(['transaction_id', 'tx_hash'])
    .where('transaction_id', 'in', transactionIds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const row of rows) {
    const list = byRow.get(row.transaction_id) ?? [];
    list.push(row.tx_hash);
    byRow.set(row.transaction_id, list);
  }
  return byRow;
}

/** Moves QUEUED rows to SUBMITTED after their broadcast. */
export async function markSubmitted(db: Executor, ids: string[], block: bigint): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('transactions')
    .set({
      state: 'SUBMITTED',
      submitted_at: new Date(),
      submitted_block: block.toString(),
      last_error: null,
      updated_at: new Date(),
    })
    .where('id', 'in', ids)
    .where('state', '=', 'QUEUED')
    .execute();
}

/** Locks PENDING rows (of those given) for promotion, oldest first. */
export function lockPending(db: Tx, ids: string[]): Promise<TransactionRow[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('id', 'in', ids)
    .where('state', '=', 'PENDING')
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function insertAttempt(
  db: Executor,
  attempt: Omit<TransactionAttemptRow, 'id' | 'created_at'>,
): Promise<void> {
  await db
    .insertInto('transaction_attempts')
    .values({ id: uuidv7(), ...attempt })
    .execute();
}

/** Every signed version of a batch in one statement (see insertAttempt). */
export async function insertAttempts(
  db: Executor,
  attempts: readonly Omit<TransactionAttemptRow, 'id' | 'created_at'>[],
): Promise<void> {
  if (attempts.length === 0) return;
  await db
    .insertInto('transaction_attempts')
    .values(attempts.map((attempt) => ({ id: uuidv7(), ...attempt })))
    .execute();
}

/** A PENDING row signed with its nonce: what queueSigned writes. */
export interface SignedRow {
  id: string;
  nonce: bigint;
  gasLimit: bigint;
  raw: string;
  hash: string;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  gasPrice: string | null;
  attempts: number;
}

/** Moves a batch of signed rows to QUEUED in one statement (the caller holds their locks). */
export async function queueSigned(db: Executor, rows: readonly SignedRow[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (row: SignedRow) => T) => rows.map(pick);
  await sql`
    UPDATE transactions AS t SET
      state = 'QUEUED',
      nonce = v.nonce,
      gas_limit = v.gas_limit,
      raw_tx = v.raw_tx,
      tx_hash = v.tx_hash,
      max_fee_per_gas = v.max_fee_per_gas,
      max_priority_fee_per_gas = v.max_priority_fee_per_gas,
      gas_price = v.gas_price,
      attempts = v.attempts,
      last_error = NULL,
      next_attempt_at = ${now},
      updated_at = ${now}
    FROM unnest(
      ${column((r) => r.id)}::uuid[],
      ${column((r) => r.nonce.toString())}::bigint[],
      ${column((r) => r.gasLimit.toString())}::numeric[],
      ${column((r) => r.raw)}::text[],
      ${column((r) => r.hash)}::text[],
      ${column((r) => r.maxFeePerGas)}::numeric[],
      ${column((r) => r.maxPriorityFeePerGas)}::numeric[],
      ${column((r) => r.gasPrice)}::numeric[],
      ${column((r) => r.attempts)}::integer[]
    ) AS v(id, nonce, gas_limit, raw_tx, tx_hash, max_fee_per_gas, max_priority_fee_per_gas, gas_price, attempts)
    WHERE t.id = v.id`.execute(db);
}

/** A receipt that settles a SUBMITTED row: what completeSubmitted writes. */
export interface Completion {
  id: string;
  txHash: string;
  blockNumber: bigint;
  blockHash: string;
  status: 'SUCCESS' | 'FAILURE';
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress: string | null;
}

/**
 * Moves a batch of rows to COMPLETED in one statement, those still SUBMITTED only (the update
 * locks each row and re-checks its state), and returns the rows it settled.
 */
export async function completeSubmitted(
  db: Executor,
  completions: readonly Completion[],
  now: Date,
): Promise<TransactionRow[]> {
  if (completions.length === 0) return [];
  const column = <T>(pick: (c: Completion) => T) => completions.map(pick);
  const result = await sql<TransactionRow>`
    UPDATE transactions AS t SET
      state = 'COMPLETED',
      tx_hash = v.tx_hash,
      mined_block_number = v.block_number,
      mined_block_hash = v.block_hash,
      on_chain_status = v.status,
      gas_used = v.gas_used,
      effective_gas_price = v.effective_gas_price,
      fee = v.gas_used * v.effective_gas_price,
      contract_address = v.contract_address,
      completed_at = ${now},
      failure_reason = CASE WHEN v.status = 'FAILURE' THEN 'reverted on chain' END,
      last_error = NULL,
      updated_at = ${now}
    FROM unnest(
      ${column((c) => c.id)}::uuid[],
      ${column((c) => c.txHash)}::text[],
      ${column((c) => c.blockNumber.toString())}::bigint[],
      ${column((c) => c.blockHash)}::text[],
      ${column((c) => c.status)}::text[],
      ${column((c) => c.gasUsed.toString())}::numeric[],
      ${column((c) => c.effectiveGasPrice.toString())}::numeric[],
      ${column((c) => c.contractAddress)}::text[]
    ) AS v(id, tx_hash, block_number, block_hash, status, gas_used, effective_gas_price, contract_address)
    WHERE t.id = v.id AND t.state = 'SUBMITTED'
    RETURNING t.*`.execute(db);
  return result.rows;
}

/** Rows the relayer still has to drive for one sender on one network, by state. */
export function liveTransactions(
  db: Executor,
  networkId: number,
  from: string,
  state: TransactionState,
  limit: number,
): Promise<TransactionRow[]> {
  let query = db
    .selectFrom('transactions')
    .selectAll()
    .where('network_id', '=', networkId)
    .where('from_address', '=', from)
    .where('state', '=', state);
  // Rows waiting out a backoff are not due yet (and must not hold a batch's places).
  if (state !== 'SUBMITTED') query = query.where('next_attempt_at', '<=', new Date());
  // An open batch has no calldata yet: the relayer closes it first (dueBatches).
  if (state === 'PENDING') query = query.where('batch_open', '=', false);
  query =
    state === 'PENDING' ? query.orderBy('created_at').orderBy('id') : query.orderBy(sql`nonce`).orderBy('id');
  return query.limit(limit).execute();
}

/** The lowest nonce held by a sender's rows in `state` (backoffs included), if any. */
export async function lowestNonce(
  db: Executor,
  networkId: number,
  from: string,
  state: TransactionState,
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.min('nonce').as('nonce'))
    .where('network_id', '=', networkId)
    .where('from_address', '=', from)
    .where('state', '=', state)
    .executeTakeFirst();
  return row?.nonce == null ? undefined : BigInt(row.nonce);
}

/** A FUNDING transaction to `to` on the network that is not settled yet, if any. */
export function findFundingInFlight(
  db: Executor,
  networkId: number,
  to: string,
): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('transactions')
    .select('id')
    .where('network_id', '=', networkId)
    .where('type', '=', 'FUNDING')
    .where('to_address', '=', to)
    .where('state', 'in', ['PENDING', 'QUEUED', 'SUBMITTED'])
    .executeTakeFirst();
}

export function countInFlight(db: Executor, networkId: number, from: string): Promise<number> {
  return db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('network_id', '=', networkId)
    .where('from_address', '=', from)
    .where('state', 'in', ['QUEUED', 'SUBMITTED'])
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/** Senders with work on a network: the relayer drives each one under a lease. */
export async function sendersWithWork(db: Executor, networkId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('transactions')
    .select('from_address')
    .distinct()
    .where('network_id', '=', networkId)
    .where('state', 'in', ['PENDING', 'QUEUED', 'SUBMITTED'])
    .execute();
  return rows.map((r) => r.from_address);
}

/** Nonces in [from, to) held by a row that did or will use them. */
export async function usedNonces(
  db: Executor,
  networkId: number,
  address: string,
  from: bigint,
  to: bigint,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('transactions')
    .select('nonce')
    .where('network_id', '=', networkId)
    .where('from_address', '=', address)
    .where('state', 'in', ['QUEUED', 'SUBMITTED', 'COMPLETED'])
    .where('nonce', '>=', from.toString())
    .where('nonce', '<', to.toString())
    .execute();
  return new Set(rows.map((r) => String(r.nonce)));
}

/** The wallet's next nonce on the network, read without a lock; undefined before it first sent there. */
export async function findNextNonce(
  db: Executor,
  networkId: number,
  address: string,
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('wallet_nonces')
    .select('next_nonce')
    .where('network_id', '=', networkId)
    .where('address', '=', address)
    .executeTakeFirst();
  return row ? BigInt(row.next_nonce) : undefined;
}

export function findNextNonceForUpdate(
  db: Tx,
  networkId: number,
  address: string,
): Promise<bigint | undefined> {
  return db
    .selectFrom('wallet_nonces')
    .select('next_nonce')
    .where('network_id', '=', networkId)
    .where('address', '=', address)
    .forUpdate()
    .executeTakeFirst()
    .then((r) => (r ? BigInt(r.next_nonce) : undefined));
}

/** Creates the nonce row, or raises it to at least `atLeast` (nonces used outside the service). */
export async function raiseNextNonce(
  db: Executor,
  networkId: number,
  address: string,
  atLeast: bigint,
): Promise<bigint> {
  const row = await sql<{ next_nonce: string }>`
    INSERT INTO wallet_nonces (network_id, address, next_nonce) VALUES (${networkId}, ${address}, ${atLeast.toString()})
    ON CONFLICT (network_id, address) DO UPDATE
      SET next_nonce = GREATEST(wallet_nonces.next_nonce, EXCLUDED.next_nonce), updated_at = now()
    RETURNING next_nonce`.execute(db);
  return BigInt(row.rows[0]!.next_nonce);
}

export async function setNextNonce(
  db: Executor,
  networkId: number,
  address: string,
  next: bigint,
): Promise<void> {
  // Never lowered: a nonce gap filled below the nonces already given leaves it after them.
  await db
    .updateTable('wallet_nonces')
    .set({ next_nonce: sql`GREATEST(next_nonce, ${next.toString()}::bigint)`, updated_at: new Date() })
    .where('network_id', '=', networkId)
    .where('address', '=', address)
    .execute();
}

/**
 * Takes or renews the lease on a (network, sender) pair; returns its epoch, or undefined when
 * another live instance holds it. A new holder gets a new epoch, which fences the old one out.
 */
export async function acquireLease(
  db: Executor,
  networkId: number,
  address: string,
  holder: string,
  seconds: number,
): Promise<string | undefined> {
  const result = await sql<{ epoch: string }>`
    INSERT INTO relayer_leases AS l (network_id, address, holder, epoch, expires_at)
    VALUES (${networkId}, ${address}, ${holder}, 1, now() + ${seconds} * interval '1 second')
    ON CONFLICT (network_id, address) DO UPDATE SET
      holder = EXCLUDED.holder,
      expires_at = EXCLUDED.expires_at,
      epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END
    WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
    RETURNING epoch`.execute(db);
  return result.rows[0]?.epoch;
}

/** Extends a lease still held (same holder and epoch, not expired); false when it was lost. */
export async function renewLease(
  db: Executor,
  networkId: number,
  address: string,
  holder: string,
  epoch: string,
  seconds: number,
): Promise<boolean> {
  const result = await sql<{ epoch: string }>`
    UPDATE relayer_leases SET expires_at = now() + ${seconds} * interval '1 second'
    WHERE network_id = ${networkId} AND address = ${address} AND holder = ${holder}
      AND epoch = ${epoch} AND expires_at > now()
    RETURNING epoch`.execute(db);
  return result.rows.length > 0;
}

/** Locks the lease row for the caller's transaction; false when the lease was lost (fencing). */
export async function holdsLease(
  db: Tx,
  networkId: number,
  address: string,
  holder: string,
  epoch: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('relayer_leases')
    .select('epoch')
    .where('network_id', '=', networkId)
    .where('address', '=', address)
    .where('holder', '=', holder)
    .where('epoch', '=', epoch)
    .where('expires_at', '>', new Date())
    .forShare()
    .executeTakeFirst();
  return row !== undefined;
}

export async function releaseLeases(db: Executor, holder: string): Promise<void> {
  await db.deleteFrom('relayer_leases').where('holder', '=', holder).execute();
}

/**
 * Queues the job that tells the owners of a transaction (deploy, mint…) that it settled, in the
 * caller's transaction (the one that settles the row).
 */
export function queueSettledJob(db: Executor, row: Pick<TransactionRow, 'id'>): Promise<void> {
  return enqueue(db, transactionSettledJob, { transaction_id: row.id }, { jobKey: `settled:${row.id}` });
}

/** queueSettledJob for many rows, in one statement. */
export function queueSettledJobs(db: Executor, rows: readonly Pick<TransactionRow, 'id'>[]): Promise<void> {
  return enqueueMany(
    db,
    transactionSettledJob,
    rows.map((row) => ({ payload: { transaction_id: row.id }, jobKey: `settled:${row.id}` })),
  );
}

/** Each filter given narrows the list; a list filter matches any of its values. */
export interface TransactionFilters {
  organizationId: string | undefined;
  networkId: number | undefined;
  state: TransactionState | undefined;
  type: TransactionType | undefined;
  walletId: string | undefined;
  networkIds: readonly number[] | undefined;
  types: readonly TransactionType[] | undefined;
  states: readonly TransactionState[] | undefined;
  /** EIP-55 checksummed, as stored. */
  signers: readonly string[] | undefined;
}

export function listTransactions(
  db: Executor,
  page: PageParams,
  filters: TransactionFilters,
): Promise<PageResult<TransactionRow>> {
  let query = db.selectFrom('transactions').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  if (filters.networkId !== undefined) query = query.where('network_id', '=', filters.networkId);
  if (filters.state !== undefined) query = query.where('state', '=', filters.state);
  if (filters.type !== undefined) query = query.where('type', '=', filters.type);
  if (filters.walletId !== undefined) query = query.where('wallet_id', '=', filters.walletId);
  if (filters.networkIds !== undefined) query = query.where('network_id', 'in', [...filters.networkIds]);
  if (filters.types !== undefined) query = query.where('type', 'in', [...filters.types]);
  if (filters.states !== undefined) query = query.where('state', 'in', [...filters.states]);
  if (filters.signers !== undefined) query = query.where('from_address', 'in', [...filters.signers]);
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: 'transactions.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'transactions.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}
