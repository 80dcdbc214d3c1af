import { type Kysely, sql } from 'kysely';

// Each transaction state holds the columns it guarantees (src/modules/platform/transactions/
// transaction-lifecycle.ts reads rows into the same variants): signed states have their nonce,
// gas limit, raw bytes, hash and one fee model; SUBMITTED and COMPLETED their broadcast block;
// COMPLETED its receipt; CANCELLED its reason. A PENDING row holds no nonce or signed bytes (a
// renonce clears them), so a nonce never outlives the bytes that use it.
export async function up(db: Kysely<unknown>): Promise<void> {
  const signed = sql`
    nonce IS NOT NULL AND gas_limit IS NOT NULL AND raw_tx IS NOT NULL AND tx_hash IS NOT NULL
    AND ((gas_price IS NOT NULL AND max_fee_per_gas IS NULL AND max_priority_fee_per_gas IS NULL)
      OR (gas_price IS NULL AND max_fee_per_gas IS NOT NULL AND max_priority_fee_per_gas IS NOT NULL))`;
  await sql`
    ALTER TABLE transactions ADD CONSTRAINT transactions_lifecycle CHECK (
      CASE state
        WHEN 'PENDING' THEN nonce IS NULL AND raw_tx IS NULL AND tx_hash IS NULL
        WHEN 'QUEUED' THEN ${signed}
        WHEN 'SUBMITTED' THEN ${signed} AND submitted_block IS NOT NULL
          AND (mined_block_number IS NULL) = (mined_block_hash IS NULL)
        WHEN 'COMPLETED' THEN ${signed} AND submitted_block IS NOT NULL
          AND mined_block_number IS NOT NULL AND mined_block_hash IS NOT NULL
          AND on_chain_status IS NOT NULL AND gas_used IS NOT NULL
          AND effective_gas_price IS NOT NULL AND fee IS NOT NULL AND completed_at IS NOT NULL
        WHEN 'CANCELLED' THEN failure_reason IS NOT NULL AND completed_at IS NOT NULL
        ELSE false
      END
    )
  `.execute(db);
}
