import type { Abi, Hex } from 'viem';
import {
  FlexibleERC721Abi,
  FlexibleERC1155Abi,
  FrozenERC721Abi,
  FrozenERC1155Abi,
  SignatureERC721Abi,
} from '../../contracts/artifacts/abis.ts';
import flexibleErc721 from '../../contracts/artifacts/FlexibleERC721.json' with { type: 'json' };
import flexibleErc1155 from '../../contracts/artifacts/FlexibleERC1155.json' with { type: 'json' };
import frozenErc721 from '../../contracts/artifacts/FrozenERC721.json' with { type: 'json' };
import frozenErc1155 from '../../contracts/artifacts/FrozenERC1155.json' with { type: 'json' };
import signatureErc721 from '../../contracts/artifacts/SignatureERC721.json' with { type: 'json' };

/**
 * The platform's contract variants, compiled from contracts/src by `npm run contracts` (the check
 * keeps the committed artifacts in step with the sources). ABIs are typed `as const`, so viem
 * checks function names and arguments.
 *
 * Every variant has the same constructor:
 * `(name, symbol, baseURI, contractURI, admin, maxSupply, royaltyReceiver, royaltyBps)`.
 */
export interface ContractArtifact<TAbi extends Abi = Abi> {
  readonly contractName: string;
  readonly abi: TAbi;
  readonly bytecode: Hex;
  /** sha256 of the compiler metadata: changes exactly when the build inputs change. */
  readonly sourceHash: Hex;
}

function artifact<const TAbi extends Abi>(
  json: { contractName: string; bytecode: string; sourceHash: string },
  abi: TAbi,
): ContractArtifact<TAbi> {
  return Object.freeze({
    contractName: json.contractName,
    abi,
    bytecode: json.bytecode as Hex,
    sourceHash: json.sourceHash as Hex,
  });
}

export const platformContracts = Object.freeze({
  FlexibleERC721: artifact(flexibleErc721, FlexibleERC721Abi),
  FlexibleERC1155: artifact(flexibleErc1155, FlexibleERC1155Abi),
  FrozenERC721: artifact(frozenErc721, FrozenERC721Abi),
  FrozenERC1155: artifact(frozenErc1155, FrozenERC1155Abi),
  SignatureERC721: artifact(signatureErc721, SignatureERC721Abi),
});

export type PlatformContractName = keyof typeof platformContracts;

export const PLATFORM_CONTRACT_NAMES = Object.freeze(
  Object.keys(platformContracts) as PlatformContractName[],
);

/** The token standard each variant implements. */
export const PLATFORM_CONTRACT_STANDARD: Readonly<Record<PlatformContractName, 'ERC721' | 'ERC1155'>> =
  Object.freeze({
    FlexibleERC721: 'ERC721',
    FlexibleERC1155: 'ERC1155',
    FrozenERC721: 'ERC721',
    FrozenERC1155: 'ERC1155',
    SignatureERC721: 'ERC721',
  });

export function getPlatformContract<N extends PlatformContractName>(name: N): (typeof platformContracts)[N] {
  return platformContracts[name];
}
