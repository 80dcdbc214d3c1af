import type { Insertable, Kysely } from 'kysely';
import { keccak256 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type PlatformContractName, platformContracts } from '../src/chain/artifacts.ts';
import { capabilitiesOf } from '../src/chain/capabilities.ts';
import type {
  CollectionRow,
  Database,
  DeploymentStatus,
  RevealStrategy,
  TokenIdAssignmentStrategy,
  TokenType,
  TransactionRow,
  TransactionsTable,
  WalletRow,
} from '../src/db/schema.ts';
import { uuidv7 } from '../src/lib/ids.ts';

export interface CollectionFixture {
  organizationId: string;
  name?: string;
  tokenType?: TokenType;
  strategy?: TokenIdAssignmentStrategy;
  networkId?: number;
  /** Deployed address; with it the deployment is SUCCESS, without it PENDING-less (none). */
  contractAddress?: string | null;
  capabilities?: string[];
  abi?: unknown[] | null;
  deploymentStatus?: DeploymentStatus;
  revealStrategy?: RevealStrategy;
  revealHidden?: boolean;
  previewMetadata?: Record<string, unknown> | null;
  /**
   * Deployed as this platform contract at a random address: its ABI, capabilities and token type
   * (the fields above, when given, still win).
   */
  deployedOn?: PlatformContractName;
}

/**
 * A collection row written directly, as a finished deployment would leave it: for tests of
 * modules that need a collection without going through deployment on a chain.
 */
export async function insertCollection(
  db: Kysely<Database>,
  given: CollectionFixture,
): Promise<CollectionRow> {
  const fixture = given.deployedOn ? { ...deployedOn(given.deployedOn), ...given } : given;
  const tokenType = fixture.tokenType ?? 'ERC721';
  const deployed = fixture.contractAddress !== undefined && fixture.contractAddress !== null;
  const status = fixture.deploymentStatus ?? (deployed ? 'SUCCESS' : 'PENDING');
  const revealStrategy = fixture.revealStrategy ?? 'INSTANT';
  return await db
    .insertInto('collections')
    .values({
      id: uuidv7(),
      organization_id: fixture.organizationId,
      name: fixture.name ?? `collection-${uuidv7()}`,
      reveal_strategy: revealStrategy,
      reveal_hidden: fixture.revealHidden ?? revealStrategy === 'DELAYED',
      preview_metadata:
        fixture.previewMetadata === undefined || fixture.previewMetadata === null
          ? null
          : JSON.stringify(fixture.previewMetadata),
      deployment_type: 'PLATFORM',
      deployment_status: status,
      network_id: fixture.networkId ?? 31337,
      token_type: tokenType,
      symbol: 'TST',
      token_id_assignment_strategy: fixture.strategy ?? 'AUTOMATIC',
      platform_variant: tokenType === 'ERC721' ? 'FlexibleERC721' : 'FlexibleERC1155',
      abi: fixture.abi ? JSON.stringify(fixture.abi) : null,
      contract_address: fixture.contractAddress ?? null,
      capabilities: fixture.capabilities ?? [],
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

function deployedOn(name: PlatformContractName): Partial<CollectionFixture> {
  const { abi } = platformContracts[name];
  return {
    contractAddress: privateKeyToAccount(generatePrivateKey()).address,
    abi: [...abi],
    capabilities: capabilitiesOf(abi),
    tokenType: name.endsWith('1155') ? 'ERC1155' : 'ERC721',
  };
}

/** The wallet an organization is created with. */
export function organizationWallet(db: Kysely<Database>, organizationId: string): Promise<WalletRow> {
  return db
    .selectFrom('wallets')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
}

/**
 * A transaction row written directly, sent by the organization's wallet (to itself unless the
 * values say otherwise) on network 31337, PENDING: what a module queued, for tests that run
 * no relayer.
 */
export async function insertTransaction(
  db: Kysely<Database>,
  organizationId: string,
  values: Pick<Insertable<TransactionsTable>, 'type'> & Partial<Insertable<TransactionsTable>>,
): Promise<TransactionRow> {
  const wallet = await organizationWallet(db, organizationId);
  return await db
    .insertInto('transactions')
    .values({
      id: uuidv7(),
      organization_id: organizationId,
      network_id: 31337,
      wallet_id: wallet.id,
      from_address: wallet.address,
      to_address: wallet.address,
      ...values,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Columns of a transaction the relayer signed with `nonce` and broadcast at block 1, as it writes
 * them (the `transactions_lifecycle` CHECK requires them from QUEUED on): set with `state`.
 */
export function submittedTransactionColumns(nonce: number | bigint) {
  const raw = `0x02${BigInt(nonce).toString(16).padStart(64, '0')}` as const;
  return {
    nonce: String(nonce),
    gas_limit: '21000',
    raw_tx: raw,
    tx_hash: keccak256(raw),
    max_fee_per_gas: '2000000000',
    max_priority_fee_per_gas: '1000000000',
    gas_price: null,
    submitted_at: new Date(),
    submitted_block: '1',
  };
}

/** A transaction mined at block 2 with `status`, settled: every column a COMPLETED row has. */
export function completedTransactionColumns(nonce: number | bigint, status: 'SUCCESS' | 'FAILURE') {
  return {
    ...submittedTransactionColumns(nonce),
    state: 'COMPLETED' as const,
    mined_block_number: '2',
    mined_block_hash: `0x${'0b'.repeat(32)}`,
    on_chain_status: status,
    gas_used: '21000',
    effective_gas_price: '1500000000',
    fee: (21_000n * 1_500_000_000n).toString(),
    completed_at: new Date(),
    ...(status === 'FAILURE' && { failure_reason: 'reverted on chain' }),
  };
}
