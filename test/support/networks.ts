import { after } from 'node:test';
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { MockERC20Abi } from '../../contracts/artifacts/abis.ts';
import mockErc20 from '../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { type DevChain, startDevChain } from '../../src/chain/dev-chain.ts';
import { freePort } from '../../src/lib/net.ts';

/** Test helpers for networks, payment tokens and wallets: real anvil nodes, real ERC-20s. */

/**
 * Call in a describe block: returns `startNode(chainId)`, which starts an anvil with that chain
 * id; every node it started is stopped after the block's last test.
 */
export function useNodes(): (chainId: number) => Promise<DevChain> {
  const nodes: DevChain[] = [];
  after(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  });
  return async (chainId) => {
    const node = await startDevChain({ chainId, blockTimeSeconds: 0.2 });
    nodes.push(node);
    return node;
  };
}

/** An http URL where no node listens (a free loopback port). */
export async function deadNodeUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

function clientsOf(node: DevChain) {
  const chain = defineChain({
    id: node.chainId,
    name: `anvil ${node.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.rpcUrl] } },
  });
  const transport = http(node.rpcUrl);
  const account = privateKeyToAccount(node.accounts[0]!.privateKey);
  return {
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    walletClient: createWalletClient({ chain, transport, account }),
    testClient: createTestClient({ chain, transport, mode: 'anvil' }),
  };
}

/** Deploys the test ERC-20 (contracts/src/test/MockERC20.sol) and returns its (lowercase) address. */
export async function deployErc20(
  node: DevChain,
  token: { name?: string; symbol: string; decimals: number },
): Promise<Address> {
  const { publicClient, walletClient } = clientsOf(node);
  const hash = await walletClient.deployContract({
    abi: MockERC20Abi,
    bytecode: mockErc20.bytecode as Hex,
    args: [token.name ?? `${token.symbol} token`, token.symbol, token.decimals],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('ERC-20 deployment failed');
  return receipt.contractAddress;
}

/** Deploys arbitrary bytecode (a contract that is not an ERC-20). */
export async function deployBytecode(
  node: DevChain,
  artifact: { abi: readonly unknown[]; bytecode: Hex },
  args: readonly unknown[],
): Promise<Address> {
  const { publicClient, walletClient } = clientsOf(node);
  const hash = await walletClient.deployContract({
    abi: artifact.abi as never,
    bytecode: artifact.bytecode,
    args: args as never,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deployment failed');
  return receipt.contractAddress;
}

/** Sets an address's native balance (anvil_setBalance). */
export async function setBalance(node: DevChain, address: Address, wei: bigint): Promise<void> {
  await clientsOf(node).testClient.setBalance({ address, value: wei });
}

/** A network body for POST /v1/networks pointing at `url`. */
export function networkBody(id: number, url: string, extra: Record<string, unknown> = {}) {
  return { id, name: `Network ${id}`, enabled: true, testnet: true, config: { url }, ...extra };
}
