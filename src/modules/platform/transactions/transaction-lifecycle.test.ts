import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TransactionRow } from '../../../db/schema.ts';
import { BrokenTransactionRow, lifecycleIn, lifecycleOf } from './transaction-lifecycle.ts';

const FROM = '0x00000000000000000000000000000000000000aa';
const TO = '0x00000000000000000000000000000000000000bb';
const RAW = '0x02f86b827a6901843b9aca00';
const HASH = `0x${'12'.repeat(32)}`;
const BLOCK_HASH = `0x${'34'.repeat(32)}`;
const CREATED = new Date('2026-01-01T00:00:00Z');
const SETTLED = new Date('2026-01-01T00:01:00Z');

function pending(patch: Partial<TransactionRow> = {}): TransactionRow {
  return {
    id: '01900000-0000-7000-8000-000000000001',
    organization_id: '01900000-0000-7000-8000-000000000002',
    network_id: 31337,
    wallet_id: '01900000-0000-7000-8000-000000000003',
    from_address: FROM,
    type: 'MINT',
    to_address: TO,
    data: '0xabcdef',
    value: '1000',
    gas_limit: null,
    state: 'PENDING',
    nonce: null,
    tx_hash: null,
    raw_tx: null,
    max_fee_per_gas: null,
    max_priority_fee_per_gas: null,
    gas_price: null,
    attempts: 0,
    submitted_at: null,
    submitted_block: null,
    mined_block_number: null,
    mined_block_hash: null,
    on_chain_status: null,
    gas_used: null,
    effective_gas_price: null,
    fee: null,
    contract_address: null,
    failure_reason: null,
    last_error: null,
    next_attempt_at: CREATED,
    created_at: CREATED,
    updated_at: CREATED,
    completed_at: null,
    batch_key: null,
    batch_open: false,
    batch_size: 0,
    batch_cap: 0,
    ...patch,
  };
}

const signedColumns = {
  nonce: '7',
  gas_limit: '21000',
  raw_tx: RAW,
  tx_hash: HASH,
  max_fee_per_gas: '200',
  max_priority_fee_per_gas: '10',
  attempts: 1,
} satisfies Partial<TransactionRow>;

const queued = (patch: Partial<TransactionRow> = {}) =>
  pending({ ...signedColumns, state: 'QUEUED', ...patch });
const submitted = (patch: Partial<TransactionRow> = {}) =>
  queued({ state: 'SUBMITTED', submitted_at: CREATED, submitted_block: '40', ...patch });
const completed = (patch: Partial<TransactionRow> = {}) =>
  submitted({
    state: 'COMPLETED',
    mined_block_number: '41',
    mined_block_hash: BLOCK_HASH,
    on_chain_status: 'SUCCESS',
    gas_used: '21000',
    effective_gas_price: '150',
    fee: '3150000',
    completed_at: SETTLED,
    ...patch,
  });

function assertBroken(row: TransactionRow, problem: RegExp) {
  assert.throws(
    () => lifecycleOf(row),
    (error: unknown) => error instanceof BrokenTransactionRow && problem.test(error.message),
  );
}

describe('lifecycleOf: a transaction row as its state variant', () => {
  it('reads a PENDING row: what to send, with the gas limit when one is known', () => {
    assert.deepEqual(lifecycleOf(pending()), {
      id: '01900000-0000-7000-8000-000000000001',
      organizationId: '01900000-0000-7000-8000-000000000002',
      networkId: 31337,
      walletId: '01900000-0000-7000-8000-000000000003',
      type: 'MINT',
      from: FROM,
      to: TO,
      data: '0xabcdef',
      value: 1000n,
      attempts: 0,
      state: 'PENDING',
      gasLimit: null,
      batch: null,
    });
    const deploy = lifecycleOf(pending({ to_address: null, gas_limit: '500000' }));
    assert.equal(deploy.state === 'PENDING' && deploy.gasLimit, 500_000n);
    assert.equal(deploy.to, null);
  });

  it('reads a QUEUED row with its nonce, gas limit, raw bytes, hash and EIP-1559 or legacy fees', () => {
    const transaction = lifecycleOf(queued());
    assert.equal(transaction.state, 'QUEUED');
    assert.ok(transaction.state === 'QUEUED');
    assert.equal(transaction.nonce, 7n);
    assert.equal(transaction.gasLimit, 21_000n);
    assert.equal(transaction.raw, RAW);
    assert.equal(transaction.hash, HASH);
    assert.deepEqual(transaction.fees, { type: 'eip1559', maxFeePerGas: 200n, maxPriorityFeePerGas: 10n });
    const legacy = lifecycleOf(
      queued({ max_fee_per_gas: null, max_priority_fee_per_gas: null, gas_price: '90' }),
    );
    assert.ok(legacy.state === 'QUEUED');
    assert.deepEqual(legacy.fees, { type: 'legacy', gasPrice: 90n });
  });

  it('reads a SUBMITTED row with its broadcast block, and the mined block while it waits for confirmations', () => {
    const waiting = lifecycleOf(submitted());
    assert.ok(waiting.state === 'SUBMITTED');
    assert.equal(waiting.submittedBlock, 40n);
    assert.equal(waiting.mined, null);
    const mined = lifecycleOf(submitted({ mined_block_number: '41', mined_block_hash: BLOCK_HASH }));
    assert.ok(mined.state === 'SUBMITTED');
    assert.deepEqual(mined.mined, { number: 41n, hash: BLOCK_HASH });
  });

  it('reads a COMPLETED row with its receipt', () => {
    const transaction = lifecycleOf(completed({ contract_address: TO }));
    assert.ok(transaction.state === 'COMPLETED');
    assert.deepEqual(transaction.receipt, {
      status: 'SUCCESS',
      block: { number: 41n, hash: BLOCK_HASH },
      gasUsed: 21_000n,
      effectiveGasPrice: 150n,
      fee: 3_150_000n,
      contractAddress: TO,
    });
    assert.equal(transaction.completedAt, SETTLED);
    assert.equal(transaction.nonce, 7n);
  });

  it('reads a CANCELLED row, from PENDING or from QUEUED, with its reason', () => {
    for (const row of [
      pending({ state: 'CANCELLED', failure_reason: 'execution reverted', completed_at: SETTLED }),
      queued({ state: 'CANCELLED', failure_reason: 'nonce too low', completed_at: SETTLED }),
    ]) {
      const transaction = lifecycleOf(row);
      assert.ok(transaction.state === 'CANCELLED');
      assert.equal(transaction.failureReason, row.failure_reason);
      assert.equal(transaction.completedAt, SETTLED);
    }
  });

  it('throws on a PENDING row that holds a nonce or signed bytes', () => {
    assertBroken(pending({ nonce: '3' }), /nonce is set/);
    assertBroken(pending({ raw_tx: RAW }), /raw_tx is set/);
    assertBroken(pending({ tx_hash: HASH }), /tx_hash is set/);
  });

  it('throws on a signed row without its nonce, gas limit, raw bytes or hash', () => {
    for (const column of ['nonce', 'gas_limit', 'raw_tx', 'tx_hash'] as const) {
      assertBroken(queued({ [column]: null }), new RegExp(`${column} is null`));
      assertBroken(submitted({ [column]: null }), new RegExp(`${column} is null`));
      assertBroken(completed({ [column]: null }), new RegExp(`${column} is null`));
    }
  });

  it('throws on a signed row whose fees are missing or mix the two fee models', () => {
    assertBroken(queued({ max_fee_per_gas: null, max_priority_fee_per_gas: null }), /fees/);
    assertBroken(queued({ gas_price: '90' }), /fees/);
    assertBroken(queued({ max_priority_fee_per_gas: null }), /fees/);
  });

  it('throws on a SUBMITTED row without its broadcast block, or with half a mined block', () => {
    assertBroken(submitted({ submitted_block: null }), /submitted_block is null/);
    assertBroken(submitted({ mined_block_number: '41' }), /mined_block_hash is null/);
    assertBroken(submitted({ mined_block_hash: BLOCK_HASH }), /mined_block_number is null/);
  });

  it('throws on a COMPLETED row without its receipt fields or settlement time', () => {
    for (const column of [
      'mined_block_number',
      'on_chain_status',
      'gas_used',
      'effective_gas_price',
      'fee',
      'completed_at',
    ] as const) {
      assertBroken(completed({ [column]: null }), new RegExp(`${column} is null`));
    }
  });

  it('throws on a CANCELLED row without its reason or settlement time', () => {
    assertBroken(pending({ state: 'CANCELLED', completed_at: SETTLED }), /failure_reason is null/);
    assertBroken(pending({ state: 'CANCELLED', failure_reason: 'x' }), /completed_at is null/);
  });

  it('throws on values that are not what their column holds, and on an unknown state', () => {
    assertBroken(queued({ raw_tx: 'f86b' }), /raw_tx is not hex/);
    assertBroken(queued({ tx_hash: '0xzz' }), /tx_hash is not hex/);
    assertBroken(queued({ nonce: '-1' }), /nonce is not an integer/);
    assertBroken(pending({ data: 'calldata' }), /data is not hex/);
    assertBroken(pending({ state: 'MINED' as TransactionRow['state'] }), /unknown state/);
  });

  it('lifecycleIn narrows to the states a query selected, and throws on another', () => {
    const transaction = lifecycleIn(submitted(), ['QUEUED', 'SUBMITTED']);
    assert.equal(transaction.nonce, 7n);
    assert.throws(() => lifecycleIn(pending(), ['SUBMITTED']), /expected SUBMITTED/);
  });
});
