import type { Executor } from '../../../db/executor.ts';
import type { NetworkRow, WalletRow } from '../../../db/schema.ts';
import { findOrganization } from '../organizations/organizations.service.ts';
import { findPlatformWallet, lockWallet } from '../wallets/wallets.service.ts';
import * as repo from './transactions.repository.ts';

/** A top-up is a plain value transfer to an organization wallet (an EOA). */
const FUNDING_GAS = 21_000n;

/**
 * autoFund: an organization wallet that cannot pay gets the network's `autoFundAmount` from the
 * platform wallet when its organization has `auto_fund`, once at a time (no second top-up while
 * one is in flight). The relayer calls it when a node reports insufficient funds.
 */
export async function requestFunding(db: Executor, network: NetworkRow, wallet: WalletRow): Promise<void> {
  const amount = BigInt(network.config.autoFundAmount);
  const organizationId = wallet.organization_id;
  if (wallet.kind !== 'ORGANIZATION' || organizationId === null || amount === 0n) return;
  const organization = await findOrganization(db, organizationId);
  if (!organization?.auto_fund) return;
  const platform = await findPlatformWallet(db);
  if (!platform) return;
  await db.transaction().execute(async (tx) => {
    // One top-up at a time per wallet and network, even with two instances racing here.
    await lockWallet(tx, wallet.id);
    if (await repo.findFundingInFlight(tx, network.id, wallet.address)) return;
    await repo.insertTransaction(tx, {
      organizationId,
      networkId: network.id,
      walletId: platform.id,
      from: platform.address,
      type: 'FUNDING',
      to: wallet.address,
      data: '0x',
      value: amount,
      gasLimit: FUNDING_GAS,
    });
  });
}
