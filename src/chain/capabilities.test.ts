import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Abi,
  type AbiFunction,
  type Hex,
  parseAbi,
  toFunctionSelector,
  toFunctionSignature,
} from 'viem';
import { ApiError } from '../lib/errors.ts';
import { PLATFORM_CONTRACT_NAMES, PLATFORM_CONTRACT_STANDARD, platformContracts } from './artifacts.ts';
import {
  assertMintable,
  assertTokenCapability,
  CAPABILITIES,
  CAPABILITY_NAMES,
  type CapabilityName,
  canonicalSignature,
  capabilitiesOf,
  capabilityAbi,
  capabilityDefinition,
  functionSelector,
  MINT_CAPABILITIES,
  type TokenType,
} from './capabilities.ts';

const ERC721_FUNCTIONS = [
  'function balanceOf(address) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
  'function safeTransferFrom(address, address, uint256)',
  'function safeTransferFrom(address, address, uint256, bytes)',
  'function transferFrom(address, address, uint256)',
  'function approve(address, uint256)',
  'function setApprovalForAll(address, bool)',
  'function getApproved(uint256) view returns (address)',
  'function isApprovedForAll(address, address) view returns (bool)',
];
const ERC1155_FUNCTIONS = [
  'function balanceOf(address, uint256) view returns (uint256)',
  'function balanceOfBatch(address[], uint256[]) view returns (uint256[])',
  'function setApprovalForAll(address, bool)',
  'function isApprovedForAll(address, address) view returns (bool)',
  'function safeTransferFrom(address, address, uint256, uint256, bytes)',
  'function safeBatchTransferFrom(address, address, uint256[], uint256[], bytes)',
];
const TOKEN_FUNCTIONS: Record<TokenType, string[]> = { ERC721: ERC721_FUNCTIONS, ERC1155: ERC1155_FUNCTIONS };

function abi(...signatures: string[]): Abi {
  return parseAbi(signatures);
}

function apiErrorCode(code: string) {
  return (error: unknown) => error instanceof ApiError && error.code === code;
}

const COMMON: CapabilityName[] = [
  'ERC2981',
  'CONTRACT_ROYALTY',
  'PER_TOKEN_ROYALTY',
  'CONTRACT_URI',
  'SET_BASE_URI',
  'SET_CONTRACT_URI',
];
const EXPECTED: Record<string, CapabilityName[]> = {
  FlexibleERC721: [
    'ERC721',
    'ADMIN_MINT_SINGLE',
    'ADMIN_MINT_SINGLE_URI',
    'ADMIN_MINT_BATCH',
    'ADMIN_MINT_MULTIPLE_NO_ID',
    ...COMMON,
    'BURN_TOKEN',
    'BATCH_TRANSFER',
    'MAX_SUPPLY',
    'OZ_ACCESS_CONTROL',
  ],
  FrozenERC721: [
    'ERC721',
    'ADMIN_MINT_SINGLE',
    'ADMIN_MINT_SINGLE_URI',
    'ADMIN_MINT_BATCH',
    'ADMIN_MINT_MULTIPLE_NO_ID',
    ...COMMON,
    'FREEZE_METADATA',
    'BURN_TOKEN',
    'BATCH_TRANSFER',
    'MAX_SUPPLY',
    'OZ_ACCESS_CONTROL',
  ],
  SignatureERC721: [
    'ERC721',
    'ADMIN_MINT_SINGLE',
    'ADMIN_MINT_SINGLE_URI',
    'ADMIN_MINT_BATCH',
    'ADMIN_MINT_MULTIPLE_NO_ID',
    'MINT_VOUCHER',
    ...COMMON,
    'BURN_TOKEN',
    'BATCH_TRANSFER',
    'MAX_SUPPLY',
    'OZ_ACCESS_CONTROL',
  ],
  FlexibleERC1155: [
    'ERC1155',
    'ADMIN_MINT_SINGLE',
    'ADMIN_MINT_MULTIPLE',
    'ADMIN_MINT_BATCH',
    ...COMMON,
    'BURN_TOKEN',
    'BATCH_TRANSFER',
    'MAX_SUPPLY',
    'OZ_ACCESS_CONTROL',
  ],
  FrozenERC1155: [
    'ERC1155',
    'ADMIN_MINT_SINGLE',
    'ADMIN_MINT_MULTIPLE',
    'ADMIN_MINT_BATCH',
    ...COMMON,
    'FREEZE_METADATA',
    'BURN_TOKEN',
    'BATCH_TRANSFER',
    'MAX_SUPPLY',
    'OZ_ACCESS_CONTROL',
  ],
};

describe('capability registry', () => {
  it('names every capability of the chain-layer issue', () => {
    for (const name of [
      'ERC721',
      'ERC1155',
      'ADMIN_MINT_SINGLE',
      'ADMIN_MINT_SINGLE_URI',
      'ADMIN_MINT_MULTIPLE',
      'ADMIN_MINT_MULTIPLE_NO_ID',
      'MINT_VOUCHER',
      'ERC2981',
      'CONTRACT_ROYALTY',
      'PER_TOKEN_ROYALTY',
      'SET_BASE_URI',
      'SET_CONTRACT_URI',
      'FREEZE_METADATA',
      'BURN_TOKEN',
      'MAX_SUPPLY',
      'OZ_ACCESS_CONTROL',
      'OZ_OWNABLE',
      'CONTRACT_URI',
    ]) {
      assert.ok((CAPABILITY_NAMES as readonly string[]).includes(name), name);
    }
    assert.deepEqual(
      CAPABILITIES.map((c) => c.name),
      [...CAPABILITY_NAMES],
    );
  });

  it('defines each capability by canonical signatures, computed as viem computes them', () => {
    for (const capability of CAPABILITIES) {
      assert.ok(capability.forms.length > 0, capability.name);
      for (const form of capability.forms) {
        assert.deepEqual(
          form.signatures,
          form.abi.map((fn) => toFunctionSignature(fn)),
          capability.name,
        );
      }
    }
    assert.deepEqual(capabilityDefinition('MINT_VOUCHER').forms[0]!.signatures, [
      'mintWithVoucher((address,uint256,uint256,uint256,address,address,address,uint256,uint256,uint256),bytes)',
      'nonces(address)',
    ]);
    assert.deepEqual(capabilityDefinition('ADMIN_MINT_MULTIPLE').forms[0]!.signatures, [
      'mintBatch(address,uint256[],uint256[])',
    ]);
    assert.deepEqual(capabilityDefinition('ADMIN_MINT_BATCH').forms[0]!.signatures, [
      'mintBatch(address[],uint256[])',
    ]);
  });

  it('gives ERC-165 interface ids that are the XOR of the required selectors', () => {
    const withIds = CAPABILITIES.filter((c) => c.interfaceId !== null);
    assert.deepEqual(
      withIds.map((c) => [c.name, c.interfaceId]),
      [
        ['ERC721', '0x80ac58cd'],
        ['ERC1155', '0xd9b67a26'],
        ['ERC2981', '0x2a55205a'],
        ['OZ_ACCESS_CONTROL', '0x7965db0b'],
      ],
    );
    for (const capability of withIds) {
      const xor = capability.forms[0]!.signatures.reduce(
        (acc, s) => acc ^ Number.parseInt(toFunctionSelector(`function ${s}`).slice(2), 16),
        0,
      );
      assert.equal(`0x${(xor >>> 0).toString(16).padStart(8, '0')}` as Hex, capability.interfaceId);
    }
  });

  it('computes canonical signatures like viem for every platform function', () => {
    for (const name of PLATFORM_CONTRACT_NAMES) {
      for (const item of platformContracts[name].abi) {
        if (item.type !== 'function') continue;
        assert.equal(canonicalSignature(item as AbiFunction), toFunctionSignature(item as AbiFunction));
        assert.equal(functionSelector(item as AbiFunction), toFunctionSelector(item as AbiFunction));
      }
    }
  });
});

describe('capabilities of the platform variants (rule 3)', () => {
  for (const name of PLATFORM_CONTRACT_NAMES) {
    it(`${name} has exactly its expected capabilities and is mintable as ${PLATFORM_CONTRACT_STANDARD[name]}`, () => {
      const capabilities = capabilitiesOf(platformContracts[name].abi);
      assert.deepEqual(capabilities, EXPECTED[name]);
      assertTokenCapability(capabilities);
      assertTokenCapability(capabilities, PLATFORM_CONTRACT_STANDARD[name]);
      assertMintable(capabilities, PLATFORM_CONTRACT_STANDARD[name]);
    });
  }
});

describe('capabilitiesOf: matching an ABI', () => {
  it('finds each capability when its functions are present and loses it when any one is missing', () => {
    for (const capability of CAPABILITIES) {
      for (const form of capability.forms) {
        const base = form.tokenType ? TOKEN_FUNCTIONS[form.tokenType] : [];
        const required = form.abi as readonly AbiFunction[];
        const full = [...abi(...base), ...required] as Abi;
        assert.ok(capabilitiesOf(full).includes(capability.name), `${capability.name} ${form.tokenType}`);
        for (const missing of required) {
          if (capability.name === 'ERC721' || capability.name === 'ERC1155') continue;
          const without = [...abi(...base), ...required.filter((f) => f !== missing)] as Abi;
          assert.ok(
            !capabilitiesOf(without).includes(capability.name),
            `${capability.name} without ${canonicalSignature(missing)}`,
          );
        }
      }
    }
  });

  it('needs every ERC-721 function, both safeTransferFrom overloads included', () => {
    assert.deepEqual(capabilitiesOf(abi(...ERC721_FUNCTIONS)), ['ERC721']);
    for (const missing of ERC721_FUNCTIONS) {
      assert.deepEqual(capabilitiesOf(abi(...ERC721_FUNCTIONS.filter((f) => f !== missing))), [], missing);
    }
    for (const missing of ERC1155_FUNCTIONS) {
      assert.deepEqual(capabilitiesOf(abi(...ERC1155_FUNCTIONS.filter((f) => f !== missing))), [], missing);
    }
  });

  it('ignores parameter names, return types, mutability and the order of entries', () => {
    const shuffled = [
      'function isApprovedForAll(address a, address b) returns (uint8)',
      'function mint(address recipient, uint256 id) payable',
      ...ERC721_FUNCTIONS.slice(0, -1).reverse(),
      'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
    ];
    assert.deepEqual(capabilitiesOf(abi(...shuffled)), ['ERC721', 'ADMIN_MINT_SINGLE']);
  });

  it('reads `uint` as `uint256`, as selectors do', () => {
    const aliased = [
      ...abi(...ERC721_FUNCTIONS),
      {
        type: 'function',
        name: 'mint',
        inputs: [
          { name: 'to', type: 'address' },
          { name: 'id', type: 'uint' },
        ],
        outputs: [],
        stateMutability: 'nonpayable',
      },
    ] as unknown as Abi;
    assert.ok(capabilitiesOf(aliased).includes('ADMIN_MINT_SINGLE'));
  });

  it('matches the voucher struct by its tuple type, whatever its field names', () => {
    const renamed = abi(
      ...ERC721_FUNCTIONS,
      'struct V { address a; uint256 b; uint256 c; uint256 d; address e; address f; address g; uint256 h; uint256 i; uint256 j; }',
      'function mintWithVoucher(V v, bytes s) payable',
      'function nonces(address) view returns (uint256)',
    );
    assert.ok(capabilitiesOf(renamed).includes('MINT_VOUCHER'));
    const otherLayout = abi(
      ...ERC721_FUNCTIONS,
      'struct V { address a; uint256 b; uint256 c; uint256 d; address e; address f; address g; uint256 h; uint256 i; }',
      'function mintWithVoucher(V v, bytes s) payable',
      'function nonces(address) view returns (uint256)',
    );
    assert.ok(!capabilitiesOf(otherLayout).includes('MINT_VOUCHER'));
  });

  it('counts a token-bound form only on a contract of that standard (an ERC-20 mint is no NFT mint)', () => {
    const erc20 = abi(
      'function transfer(address, uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
      'function mint(address, uint256)',
      'function burn(uint256)',
      'function maxSupply() view returns (uint256)',
    );
    assert.deepEqual(capabilitiesOf(erc20), ['MAX_SUPPLY']);
    // The ERC-721 forms on an ERC-1155 contract do not count either.
    const mixed = abi(...ERC1155_FUNCTIONS, 'function mint(address, uint256)', 'function burn(uint256)');
    assert.deepEqual(capabilitiesOf(mixed), ['ERC1155']);
  });

  it('tells the ERC-721 batch mint (ADMIN_MINT_BATCH) from the ERC-1155 one (ADMIN_MINT_MULTIPLE)', () => {
    assert.deepEqual(capabilitiesOf(abi(...ERC721_FUNCTIONS, 'function mintBatch(address[], uint256[])')), [
      'ERC721',
      'ADMIN_MINT_BATCH',
    ]);
    assert.deepEqual(
      capabilitiesOf(abi(...ERC1155_FUNCTIONS, 'function mintBatch(address, uint256[], uint256[])')),
      ['ERC1155', 'ADMIN_MINT_MULTIPLE'],
    );
  });

  it('finds OZ_OWNABLE on an Ownable contract', () => {
    const ownable = abi(
      ...ERC721_FUNCTIONS,
      'function owner() view returns (address)',
      'function transferOwnership(address)',
      'function renounceOwnership()',
    );
    assert.deepEqual(capabilitiesOf(ownable), ['ERC721', 'OZ_OWNABLE']);
  });

  it('gives the form of the standard asked for', () => {
    assert.deepEqual(capabilityAbi('ADMIN_MINT_SINGLE', 'ERC721')?.map(canonicalSignature), [
      'mint(address,uint256)',
    ]);
    assert.deepEqual(capabilityAbi('ADMIN_MINT_SINGLE', 'ERC1155')?.map(canonicalSignature), [
      'mint(address,uint256,uint256)',
    ]);
    assert.deepEqual(capabilityAbi('SET_BASE_URI', 'ERC1155')?.map(canonicalSignature), [
      'setBaseURI(string)',
    ]);
    assert.equal(capabilityAbi('MINT_VOUCHER', 'ERC1155'), undefined);
  });
});

describe('capability rule 1: assertTokenCapability', () => {
  it('rejects a contract with neither ERC721 nor ERC1155 with MISSING_TOKEN_CAPABILITY (422)', () => {
    assert.throws(
      () => assertTokenCapability(['MAX_SUPPLY', 'OZ_OWNABLE']),
      (error: unknown) =>
        apiErrorCode('MISSING_TOKEN_CAPABILITY')(error) && (error as ApiError).status === 422,
    );
    assert.throws(() => assertTokenCapability([]), apiErrorCode('MISSING_TOKEN_CAPABILITY'));
  });

  it('accepts ERC721 or ERC1155', () => {
    assertTokenCapability(['ERC721']);
    assertTokenCapability(['ERC1155']);
    assertTokenCapability(['ERC721'], null);
  });

  it('rejects a contract lacking the token type asked for', () => {
    assert.throws(
      () => assertTokenCapability(['ERC721'], 'ERC1155'),
      apiErrorCode('MISSING_TOKEN_CAPABILITY'),
    );
    assert.throws(
      () => assertTokenCapability(['ERC1155'], 'ERC721'),
      apiErrorCode('MISSING_TOKEN_CAPABILITY'),
    );
    assertTokenCapability(['ERC1155'], 'ERC1155');
  });
});

describe('capability rule 2: assertMintable', () => {
  it('accepts an ERC-721 with any one of ADMIN_MINT_SINGLE, MINT_VOUCHER, ADMIN_MINT_SINGLE_URI, ADMIN_MINT_MULTIPLE_NO_ID', () => {
    assert.deepEqual([...MINT_CAPABILITIES.ERC721].sort(), [
      'ADMIN_MINT_MULTIPLE_NO_ID',
      'ADMIN_MINT_SINGLE',
      'ADMIN_MINT_SINGLE_URI',
      'MINT_VOUCHER',
    ]);
    for (const capability of MINT_CAPABILITIES.ERC721) assertMintable(['ERC721', capability], 'ERC721');
  });

  it('accepts an ERC-1155 with ADMIN_MINT_MULTIPLE', () => {
    assertMintable(['ERC1155', 'ADMIN_MINT_MULTIPLE'], 'ERC1155');
  });

  it('rejects an ERC-721 without a mint capability with MISSING_MINT_CAPABILITY (422)', () => {
    assert.throws(
      () => assertMintable(['ERC721', 'BURN_TOKEN', 'ADMIN_MINT_MULTIPLE'], 'ERC721'),
      (error: unknown) =>
        apiErrorCode('MISSING_MINT_CAPABILITY')(error) && (error as ApiError).status === 422,
    );
    // The ERC-721 batch with ids is not among the mint capabilities (rule 2).
    assert.throws(
      () => assertMintable(['ERC721', 'ADMIN_MINT_BATCH'], 'ERC721'),
      apiErrorCode('MISSING_MINT_CAPABILITY'),
    );
  });

  it('rejects an ERC-1155 whose only mint is ADMIN_MINT_SINGLE (rule 2 lists it for ERC721)', () => {
    assert.throws(
      () => assertMintable(['ERC1155', 'ADMIN_MINT_SINGLE'], 'ERC1155'),
      apiErrorCode('MISSING_MINT_CAPABILITY'),
    );
  });

  it('answers MISSING_TOKEN_CAPABILITY when the contract is not of the token type at all', () => {
    assert.throws(
      () => assertMintable(['ERC721', 'ADMIN_MINT_SINGLE'], 'ERC1155'),
      apiErrorCode('MISSING_TOKEN_CAPABILITY'),
    );
  });

  it('works end to end from an ABI', () => {
    const custom = capabilitiesOf(abi(...ERC721_FUNCTIONS, 'function mintWithURI(address, uint256, string)'));
    assertMintable(custom, 'ERC721');
    const bare = capabilitiesOf(abi(...ERC1155_FUNCTIONS, 'function mint(address, uint256, uint256)'));
    assert.throws(() => assertMintable(bare, 'ERC1155'), apiErrorCode('MISSING_MINT_CAPABILITY'));
  });
});
