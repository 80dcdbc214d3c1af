import { type Hex, keccak256 } from 'viem';
import type { Fees } from '../../../chain/fees.ts';
import type { Executor } from '../../../db/executor.ts';
import type { Pair } from './relayer-pass.ts';
import type { PendingTransaction } from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';

/*
 * Signing for the relayer (relayer.ts): a row signed with its nonce and fees, and stored QUEUED
 * before any broadcast. Promotion (relayer-send.ts), gap fills (relayer-reconcile.ts) and fee
 * bumps (relayer-monitor.ts) sign through here.
 */

export function signAndQueue(
  tx: Executor,
  pair: Pair,
  row: PendingTransaction,
  nonce: bigint,
  gas: bigint,
  fees: Fees,
): Promise<void> {
  return signAndQueueAll(tx, pair, [{ row, nonce, gas }], fees);
}

/**
 * Signs rows with the nonces given (consecutive, ascending) and stores them QUEUED, the raw
 * bytes before any broadcast: one statement for the attempts, one for the rows, one for the
 * wallet's next nonce (after the last one), in the caller's transaction.
 */
export async function signAndQueueAll(
  tx: Executor,
  pair: Pair,
  batch: readonly { row: PendingTransaction; nonce: bigint; gas: bigint }[],
  fees: Fees,
): Promise<void> {
  if (batch.length === 0) return;
  const fee = feeColumns(fees);
  const signed: repo.SignedRow[] = [];
  for (const { row, nonce, gas } of batch) {
    const { raw, hash } = await sign(pair, row, nonce, gas, fees);
    signed.push({
      id: row.id,
      nonce,
      gasLimit: gas,
      raw,
      hash,
      maxFeePerGas: fee.max_fee_per_gas,
      maxPriorityFeePerGas: fee.max_priority_fee_per_gas,
      gasPrice: fee.gas_price,
      attempts: row.attempts + 1,
    });
  }
  await repo.insertAttempts(
    tx,
    signed.map((s) => ({
      transaction_id: s.id,
      tx_hash: s.hash,
      raw_tx: s.raw,
      nonce: s.nonce.toString(),
      ...fee,
    })),
  );
  await repo.setNextNonce(tx, pair.network.id, pair.address, signed[signed.length - 1]!.nonce + 1n);
  await repo.queueSigned(tx, signed, new Date());
}

export async function sign(
  pair: Pair,
  row: Pick<PendingTransaction, 'to' | 'data' | 'value'>,
  nonce: bigint,
  gas: bigint,
  fees: Fees,
): Promise<{ raw: Hex; hash: Hex }> {
  const base = {
    ...(row.to !== null && { to: row.to }),
    data: row.data,
    value: row.value,
    gas,
    nonce: Number(nonce),
  };
  const raw =
    fees.type === 'eip1559'
      ? await pair.account.signTransaction({
          ...base,
          type: 'eip1559',
          chainId: pair.network.id,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        })
      : await pair.account.signTransaction({
          ...base,
          type: 'legacy',
          gasPrice: fees.gasPrice,
          // Without eip155 the signature carries no chain id (pre-EIP-155 networks).
          ...(pair.network.config.eip155 && { chainId: pair.network.id }),
        });
  return { raw, hash: keccak256(raw) };
}

export function feeColumns(fees: Fees) {
  return fees.type === 'eip1559'
    ? {
        max_fee_per_gas: fees.maxFeePerGas.toString(),
        max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
        gas_price: null,
      }
    : { max_fee_per_gas: null, max_priority_fee_per_gas: null, gas_price: fees.gasPrice.toString() };
}
