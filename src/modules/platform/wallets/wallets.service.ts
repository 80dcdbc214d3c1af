import type { Hex } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { OrganizationRow, WalletRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import type { Keyring } from '../../../lib/secrets.ts';
import { chainClientOf, listEnabledNetworks } from '../networks/networks.service.ts';
import * as repo from './wallets.repository.ts';
import type { OrganizationWallet } from './wallets.schemas.ts';

export function findPlatformWallet(db: Executor): Promise<WalletRow | undefined> {
  return repo.findPlatformWallet(db);
}

export function findWallet(db: Executor, id: string): Promise<WalletRow | undefined> {
  return repo.findWallet(db, id);
}

/** The wallet that signs for `address` (the sender of a transaction), if the service has it. */
export function findWalletByAddress(db: Executor, address: string): Promise<WalletRow | undefined> {
  return repo.findWalletByAddress(db, address);
}

/**
 * Serialises work on one wallet (a top-up decision) across instances, until the caller's
 * transaction ends.
 */
export function lockWallet(db: Tx, id: string): Promise<void> {
  return repo.lockWallet(db, id);
}

/**
 * The organization's signing wallet, which every organization has from its creation (the
 * organizations service creates both in one transaction): its absence is a broken invariant,
 * not a client error.
 */
export async function organizationWalletOf(db: Executor, organizationId: string): Promise<WalletRow> {
  const wallet = await repo.findOrganizationWallet(db, organizationId);
  if (!wallet) throw new Error(`organization ${organizationId} has no wallet`);
  return wallet;
}

/** The organization's signing wallet, created with the organization; its key never leaves encrypted. */
export async function createOrganizationWallet(
  db: Executor,
  keyring: Keyring,
  organizationId: string,
): Promise<WalletRow> {
  const privateKey = generatePrivateKey();
  return repo.insertWallet(db, {
    id: uuidv7(),
    organization_id: organizationId,
    kind: 'ORGANIZATION',
    address: privateKeyToAccount(privateKey).address,
    private_key: keyring.encrypt(privateKey),
  });
}

/**
 * The platform's funding wallet (tops up organization wallets). Created once, from the given key
 * (the dev chain's funded account) or a generated one; an existing wallet is kept.
 */
export async function ensurePlatformWallet(
  db: Executor,
  keyring: Keyring,
  privateKey?: Hex,
): Promise<WalletRow> {
  const existing = await repo.findPlatformWallet(db);
  if (existing) return existing;
  const key = privateKey ?? generatePrivateKey();
  // Two callers that found none race to create it: the second takes the first's.
  const created = await repo.insertWalletUnlessTaken(db, {
    id: uuidv7(),
    organization_id: null,
    kind: 'PLATFORM',
    address: privateKeyToAccount(key).address,
    private_key: keyring.encrypt(key),
  });
  const wallet = created ?? (await repo.findPlatformWallet(db));
  if (!wallet) throw new Error('the platform wallet was neither created nor found');
  return wallet;
}

/** The signing account of a wallet (decrypted in memory only). */
export function signerOf(keyring: Keyring, wallet: WalletRow): PrivateKeyAccount {
  return privateKeyToAccount(keyring.decrypt(wallet.private_key) as Hex);
}

/**
 * A page of the organization's wallets with their native balance on each of the organization's
 * networks that is registered and enabled. A node that fails gives a null balance for its
 * network, never a failed page: one bad node must not hide every other balance.
 */
export async function listOrganizationWallets(
  db: Executor,
  deps: Deps,
  organization: OrganizationRow,
  page: PageParams,
): Promise<PageResult<OrganizationWallet>> {
  const [wallets, networks] = await Promise.all([
    repo.listWalletsOfOrganization(db, organization.id, page),
    listEnabledNetworks(db, organization.network_ids),
  ]);
  const results = await Promise.all(
    wallets.results.map(async (wallet) => {
      const balances = await Promise.all(
        networks.map(async (network) => {
          const balance = await chainClientOf(deps, network)
            .balance(wallet.address as Hex)
            .then(String, () => null);
          return [String(network.id), balance] as const;
        }),
      );
      return {
        id: wallet.id,
        address: wallet.address,
        network_ids: networks.map((n) => n.id),
        auto_fund: organization.auto_fund,
        balance: Object.fromEntries(balances),
      };
    }),
  );
  return { ...wallets, results };
}
