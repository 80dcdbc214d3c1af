import { type Address, getContract, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type PlatformContractName, platformContracts } from '../../src/chain/artifacts.ts';
import type { TestChain, TestWallet } from '../chain/anvil.ts';

export const BASE_URI = 'http://localhost:8080/v1/metadata/0190c4b2-5a3e-7000-8000-000000000001/';
export const CONTRACT_URI = 'http://localhost:8080/v1/metadata/0190c4b2-5a3e-7000-8000-000000000001';

/** ERC-165 interface ids. */
export const INTERFACE_IDS = {
  ERC165: '0x01ffc9a7',
  ERC721: '0x80ac58cd',
  ERC721Metadata: '0x5b5e139f',
  ERC1155: '0xd9b67a26',
  ERC1155MetadataURI: '0x0e89341c',
  ERC2981: '0x2a55205a',
  AccessControl: '0x7965db0b',
  ERC4906: '0x49064906',
} as const;

export interface DeployOptions {
  admin?: TestWallet;
  maxSupply?: bigint;
  royaltyReceiver?: Address;
  royaltyBps?: bigint;
}

/** Deploys a platform collection with the test URIs; the admin defaults to dev account 0. */
export async function deployCollection<N extends PlatformContractName>(
  chain: TestChain,
  name: N,
  options: DeployOptions = {},
) {
  const admin = options.admin ?? chain.wallet(0);
  const artifact = platformContracts[name];
  const address = await chain.deploy(admin, artifact as (typeof platformContracts)['FlexibleERC721'], [
    'Test Collection',
    'TST',
    BASE_URI,
    CONTRACT_URI,
    admin.account.address,
    options.maxSupply ?? 0n,
    options.royaltyReceiver ?? zeroAddress,
    options.royaltyBps ?? 0n,
  ]);
  return {
    address,
    /** The contract as seen by `wallet` (default: the admin). */
    as: (wallet: TestWallet = admin) =>
      getContract({
        address,
        abi: artifact.abi as (typeof platformContracts)[N]['abi'],
        client: { public: chain.publicClient, wallet },
      }),
  };
}

/** A fresh address with no history and no balance. */
export function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}
