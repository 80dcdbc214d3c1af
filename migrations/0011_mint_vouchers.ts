import { type Kysely, sql } from 'kysely';

// Mint vouchers of SignatureERC721 contracts: signed by the organization's wallet for one minter,
// redeemed by that minter on chain (mintWithVoucher), seen by the watcher. One PENDING voucher per
// (contract, minter): the contract takes a minter's vouchers in nonce order, and a second voucher
// signed with the same nonce could be redeemed in place of the first.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE mint_vouchers (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      collection_id uuid NOT NULL REFERENCES collections (id),
      item_id uuid NOT NULL REFERENCES items (id),
      network_id integer NOT NULL REFERENCES networks (id),
      -- Lower-case, so the unique index compares addresses by value.
      contract_address text NOT NULL,
      minter text NOT NULL,
      -- 0: the contract assigns the id (EXTERNAL ids); otherwise the item's.
      token_id numeric(78, 0) NOT NULL,
      quantity numeric(78, 0) NOT NULL CHECK (quantity > 0),
      price numeric(78, 0) NOT NULL,
      -- The ERC-20's address, or the zero address for the native coin.
      currency text NOT NULL,
      net_recipient text NOT NULL,
      fee_recipient text NOT NULL,
      fee_amount numeric(78, 0) NOT NULL CHECK (fee_amount <= price),
      nonce numeric(78, 0) NOT NULL,
      -- Unix seconds, as signed.
      expiry numeric(78, 0) NOT NULL,
      signature text NOT NULL,
      -- The EIP-712 digest the contract's VoucherRedeemed event names.
      digest text NOT NULL,
      -- The block the voucher was issued at: its redemption cannot be older.
      issued_block numeric(78, 0) NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'REDEEMED', 'EXPIRED', 'CANCELLED')),
      holder_kind text NOT NULL CHECK (holder_kind IN ('EMAIL_CLAIM', 'PURCHASE_INTENT')),
      holder_id uuid NOT NULL,
      redeemed_tx_hash text,
      redeemed_block numeric(78, 0),
      redeemed_token_id numeric(78, 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      CONSTRAINT mint_vouchers_redeemed_check
        CHECK ((status = 'REDEEMED') = (redeemed_tx_hash IS NOT NULL AND redeemed_block IS NOT NULL))
    );
    CREATE UNIQUE INDEX mint_vouchers_pending_key ON mint_vouchers (contract_address, network_id, minter)
      WHERE status = 'PENDING';
    CREATE INDEX mint_vouchers_pending_network_idx ON mint_vouchers (network_id, id) WHERE status = 'PENDING';
    CREATE INDEX mint_vouchers_minter_idx ON mint_vouchers (minter, created_at, id);
    CREATE INDEX mint_vouchers_holder_idx ON mint_vouchers (holder_id);
    ALTER TABLE email_claims ADD CONSTRAINT email_claims_voucher_fkey
      FOREIGN KEY (voucher_id) REFERENCES mint_vouchers (id);
  `.execute(db);
}
