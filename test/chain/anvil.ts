import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  type ContractConstructorArgs,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hash,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { nonceManager, privateKeyToAccount } from 'viem/accounts';
import { type DevChain, startDevChain } from '../../src/chain/dev-chain.ts';

/** Interval mining in tests: blocks every 0.2 s (see DESIGN.md on anvil's automine). */
const TEST_BLOCK_TIME_SECONDS = 0.2;

export type TestWallet = WalletClient<Transport, Chain, Account> & { account: Account };

export interface TestChain {
  readonly dev: DevChain;
  readonly chain: Chain;
  readonly publicClient: PublicClient<Transport, Chain>;
  /** One wallet client per funded dev account; each signs with its own nonce manager. */
  readonly wallets: readonly TestWallet[];
  wallet(index: number): TestWallet;
  /** Deploys a contract from `wallet` and returns its address once mined. */
  deploy<const TAbi extends Abi>(
    wallet: TestWallet,
    artifact: { abi: TAbi; bytecode: Hex },
    args: ContractConstructorArgs<TAbi>,
  ): Promise<Address>;
  /** Waits for the receipt of `hash` and asserts the transaction succeeded. */
  mined(hash: Promise<Hash> | Hash): Promise<TransactionReceipt>;
  /** Timestamp of the latest block (the chain's clock, not this machine's). */
  now(): Promise<bigint>;
}

/**
 * Starts a dev chain for the test file (before its first test) and stops it after the last:
 * `const chain = useTestChain();` then `chain()` inside tests.
 */
export function useTestChain(): () => TestChain {
  let current: TestChain | undefined;
  before(async () => {
    current = await startTestChain();
  });
  after(async () => {
    await current?.dev.stop();
  });
  return () => {
    if (!current) throw new Error('the test chain is not started yet: call chain() inside a test or hook');
    return current;
  };
}

export async function startTestChain(): Promise<TestChain> {
  const dev = await startDevChain({ blockTimeSeconds: TEST_BLOCK_TIME_SECONDS });
  const chain = defineChain({
    id: dev.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [dev.rpcUrl] } },
  });
  const transport = http(dev.rpcUrl);
  const pollingInterval = 50;
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  const wallets = dev.accounts.map(
    (account) =>
      createWalletClient({
        chain,
        transport,
        pollingInterval,
        account: privateKeyToAccount(account.privateKey, { nonceManager }),
      }) as TestWallet,
  );

  const mined = async (hash: Promise<Hash> | Hash) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    assert.equal(receipt.status, 'success', `transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };

  return {
    dev,
    chain,
    publicClient,
    wallets,
    wallet(index) {
      const wallet = wallets[index];
      if (!wallet) throw new Error(`no dev account ${index}`);
      return wallet;
    },
    async deploy(wallet, artifact, args) {
      const hash = await wallet.deployContract({
        abi: artifact.abi as Abi,
        bytecode: artifact.bytecode,
        args: args as readonly unknown[],
      });
      const receipt = await mined(hash);
      assert.ok(receipt.contractAddress, 'deployment without a contract address');
      return receipt.contractAddress;
    },
    mined,
    async now() {
      return (await publicClient.getBlock()).timestamp;
    },
  };
}

/** Asserts that `call` reverts with the custom error `errorName` (decoded from the contract ABI). */
export async function assertReverts(call: Promise<unknown>, errorName: string): Promise<void> {
  try {
    await call;
  } catch (error) {
    const reverted =
      error instanceof Error && 'walk' in error && typeof error.walk === 'function'
        ? (error.walk((e: unknown) => e instanceof ContractFunctionRevertedError) as unknown)
        : undefined;
    assert.ok(reverted instanceof ContractFunctionRevertedError, `expected a revert, got: ${String(error)}`);
    assert.equal(reverted.data?.errorName, errorName, `expected ${errorName}, got: ${reverted.shortMessage}`);
    return;
  }
  assert.fail(`expected a revert with ${errorName}, but the call succeeded`);
}
