import { type Abi, type AbiFunction, type AbiParameter, type Hex, parseAbi, toFunctionSelector } from 'viem';
import { TOKEN_TYPES } from '../db/enums.ts';
import { ApiError } from '../lib/errors.ts';

/**
 * The capability registry. A capability is a named set of functions the service knows how to
 * call. The capability rules (docs/api.md#contracts-and-capabilities):
 * 1. a contract the service uses must have a token standard, ERC721 or ERC1155 (the one the caller
 *    names, when it names one), else 422 MISSING_TOKEN_CAPABILITY (assertTokenCapability);
 * 2. it is mintable through the service only with one of MINT_CAPABILITIES of that standard, else
 *    422 MISSING_MINT_CAPABILITY (assertMintable);
 * 3. a contract has a capability when its ABI declares every function of it (capabilitiesOf).
 * Functions are matched by canonical signature, name plus input types as the selector is computed
 * (`mint(address,uint256)`, structs as tuples), so parameter names, return types and the order of
 * overloads in the ABI never matter.
 *
 * Some capabilities take a different form on each token standard (ADMIN_MINT_SINGLE is
 * `mint(address,uint256)` on ERC-721 and `mint(address,uint256,uint256)` on ERC-1155). A form
 * bound to a standard counts only on a contract that has that standard's capability too, so an
 * ERC-20's `mint(address,uint256)` or `burn(uint256)` is never mistaken for an NFT one.
 *
 * | capability                | form (token standard) | functions (canonical signatures)                          |
 * |---------------------------|-----------------------|-----------------------------------------------------------|
 * | ERC721                    | -                     | balanceOf(address), ownerOf(uint256),                     |
 * |                           |                       | safeTransferFrom(address,address,uint256),                |
 * |                           |                       | safeTransferFrom(address,address,uint256,bytes),          |
 * |                           |                       | transferFrom(address,address,uint256),                    |
 * |                           |                       | approve(address,uint256), setApprovalForAll(address,bool),|
 * |                           |                       | getApproved(uint256), isApprovedForAll(address,address)   |
 * |                           |                       | (their selectors XOR to ERC-165 id 0x80ac58cd)            |
 * | ERC1155                   | -                     | balanceOf(address,uint256),                               |
 * |                           |                       | balanceOfBatch(address[],uint256[]),                      |
 * |                           |                       | setApprovalForAll(address,bool),                          |
 * |                           |                       | isApprovedForAll(address,address),                        |
 * |                           |                       | safeTransferFrom(address,address,uint256,uint256,bytes),  |
 * |                           |                       | safeBatchTransferFrom(address,address,uint256[],          |
 * |                           |                       |   uint256[],bytes) (ERC-165 id 0xd9b67a26)                |
 * | ADMIN_MINT_SINGLE         | ERC721                | mint(address,uint256)                                     |
 * |                           | ERC1155               | mint(address,uint256,uint256)                             |
 * | ADMIN_MINT_SINGLE_URI     | ERC721                | mintWithURI(address,uint256,string)                       |
 * | ADMIN_MINT_MULTIPLE       | ERC1155               | mintBatch(address,uint256[],uint256[])                    |
 * | ADMIN_MINT_BATCH          | ERC721                | mintBatch(address[],uint256[])                            |
 * |                           | ERC1155               | mintToMany(address[],uint256[],uint256[])                 |
 * | ADMIN_MINT_MULTIPLE_NO_ID | ERC721                | mintBatchNoId(address,uint256)                            |
 * | MINT_VOUCHER              | ERC721                | mintWithVoucher((address,uint256,uint256,uint256,address, |
 * |                           |                       |   address,address,uint256,uint256,uint256),bytes),        |
 * |                           |                       | nonces(address)                                           |
 * | ERC2981                   | -                     | royaltyInfo(uint256,uint256) (ERC-165 id 0x2a55205a)      |
 * | CONTRACT_ROYALTY          | -                     | setDefaultRoyalty(address,uint96),                        |
 * |                           |                       | royaltyInfo(uint256,uint256)                              |
 * | PER_TOKEN_ROYALTY         | -                     | setTokenRoyalty(uint256,address,uint96),                  |
 * |                           |                       | royaltyInfo(uint256,uint256)                              |
 * | CONTRACT_URI              | -                     | contractURI()                                             |
 * | SET_BASE_URI              | -                     | setBaseURI(string)                                        |
 * | SET_CONTRACT_URI          | -                     | setContractURI(string)                                    |
 * | FREEZE_METADATA           | -                     | freezeMetadata()                                          |
 * | BURN_TOKEN                | ERC721                | burn(uint256)                                             |
 * |                           | ERC1155               | burn(address,uint256,uint256)                             |
 * | BATCH_TRANSFER            | ERC721                | transferToMany(address,address[],uint256[])               |
 * |                           | ERC1155               | transferToMany(address,address[],uint256[],uint256[])     |
 * | MAX_SUPPLY                | -                     | maxSupply()                                               |
 * | OZ_ACCESS_CONTROL         | -                     | hasRole(bytes32,address), getRoleAdmin(bytes32),          |
 * |                           |                       | grantRole(bytes32,address), revokeRole(bytes32,address),  |
 * |                           |                       | renounceRole(bytes32,address) (ERC-165 id 0x7965db0b)     |
 * | OZ_OWNABLE                | -                     | owner(), transferOwnership(address), renounceOwnership()  |
 *
 * ADMIN_MINT_BATCH and BATCH_TRANSFER reach many recipients in one call (one per token id, or per
 * (id, amount) entry): the token-flow pipeline delivers to many buyers in one transaction with
 * them. ADMIN_MINT_BATCH is not ADMIN_MINT_MULTIPLE: rule 2 names ADMIN_MINT_MULTIPLE as the
 * ERC-1155 batch to one recipient, and one name must not mean two calls of which only one makes a
 * contract mintable.
 */

export { TOKEN_TYPES };
export type TokenType = (typeof TOKEN_TYPES)[number];

/** Every capability, in the order the service reports them. */
export const CAPABILITY_NAMES = [
  'ERC721',
  'ERC1155',
  'ADMIN_MINT_SINGLE',
  'ADMIN_MINT_SINGLE_URI',
  'ADMIN_MINT_MULTIPLE',
  'ADMIN_MINT_BATCH',
  'ADMIN_MINT_MULTIPLE_NO_ID',
  'MINT_VOUCHER',
  'ERC2981',
  'CONTRACT_ROYALTY',
  'PER_TOKEN_ROYALTY',
  'CONTRACT_URI',
  'SET_BASE_URI',
  'SET_CONTRACT_URI',
  'FREEZE_METADATA',
  'BURN_TOKEN',
  'BATCH_TRANSFER',
  'MAX_SUPPLY',
  'OZ_ACCESS_CONTROL',
  'OZ_OWNABLE',
] as const;
export type CapabilityName = (typeof CAPABILITY_NAMES)[number];

/**
 * Capability rule 2: what makes a contract mintable through the service, per token standard.
 * ADMIN_MINT_SINGLE counts for ERC-721 only, so an ERC-1155 contract needs its batch mint (the
 * platform's ERC-1155 variants have both).
 */
export const MINT_CAPABILITIES: Readonly<Record<TokenType, readonly CapabilityName[]>> = Object.freeze({
  ERC721: Object.freeze([
    'ADMIN_MINT_SINGLE',
    'MINT_VOUCHER',
    'ADMIN_MINT_SINGLE_URI',
    'ADMIN_MINT_MULTIPLE_NO_ID',
  ] as const),
  ERC1155: Object.freeze(['ADMIN_MINT_MULTIPLE'] as const),
});

/** The voucher of SignatureERC721 (contracts/README.md "Mint vouchers"). */
const MINT_VOUCHER_STRUCT =
  'struct MintVoucher { address minter; uint256 tokenId; uint256 quantity; uint256 price; address currency; address netRecipient; address feeRecipient; uint256 feeAmount; uint256 nonce; uint256 expiry; }';

interface FormSource {
  /** The form counts only on a contract that also has this token standard's capability. */
  readonly tokenType?: TokenType;
  /** Human-readable ABI of the functions (viem `parseAbi`); names and outputs document them. */
  readonly functions: readonly string[];
}

interface DefinitionSource {
  readonly description: string;
  /** The ERC-165 interface whose functions are exactly the capability's (XOR of selectors). */
  readonly interfaceId?: Hex;
  readonly forms: readonly FormSource[];
}

const ROYALTY_INFO =
  'function royaltyInfo(uint256 tokenId, uint256 salePrice) view returns (address receiver, uint256 royaltyAmount)';

const SOURCES: Record<CapabilityName, DefinitionSource> = {
  ERC721: {
    description: 'ERC-721 non-fungible token',
    interfaceId: '0x80ac58cd',
    forms: [
      {
        functions: [
          'function balanceOf(address owner) view returns (uint256)',
          'function ownerOf(uint256 tokenId) view returns (address)',
          'function safeTransferFrom(address from, address to, uint256 tokenId)',
          'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
          'function transferFrom(address from, address to, uint256 tokenId)',
          'function approve(address to, uint256 tokenId)',
          'function setApprovalForAll(address operator, bool approved)',
          'function getApproved(uint256 tokenId) view returns (address)',
          'function isApprovedForAll(address owner, address operator) view returns (bool)',
        ],
      },
    ],
  },
  ERC1155: {
    description: 'ERC-1155 multi-token',
    interfaceId: '0xd9b67a26',
    forms: [
      {
        functions: [
          'function balanceOf(address account, uint256 id) view returns (uint256)',
          'function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])',
          'function setApprovalForAll(address operator, bool approved)',
          'function isApprovedForAll(address account, address operator) view returns (bool)',
          'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
          'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
        ],
      },
    ],
  },
  ADMIN_MINT_SINGLE: {
    description:
      'Admin mint of one token: mint(to, tokenId) on ERC-721, mint(to, id, amount) on ERC-1155 (counts as a mint capability on ERC-721 only, rule 2)',
    forms: [
      { tokenType: 'ERC721', functions: ['function mint(address to, uint256 tokenId)'] },
      { tokenType: 'ERC1155', functions: ['function mint(address to, uint256 id, uint256 amount)'] },
    ],
  },
  ADMIN_MINT_SINGLE_URI: {
    description: 'Admin mint of one ERC-721 token with its own token URI',
    forms: [
      { tokenType: 'ERC721', functions: ['function mintWithURI(address to, uint256 tokenId, string uri)'] },
    ],
  },
  ADMIN_MINT_MULTIPLE: {
    description: 'Admin mint of several ERC-1155 ids with amounts in one call',
    forms: [
      {
        tokenType: 'ERC1155',
        functions: ['function mintBatch(address to, uint256[] ids, uint256[] amounts)'],
      },
    ],
  },
  ADMIN_MINT_BATCH: {
    description:
      'Admin mint to many recipients in one call: mintBatch(to[], tokenIds[]) on ERC-721, mintToMany(to[], ids[], amounts[]) on ERC-1155',
    forms: [
      { tokenType: 'ERC721', functions: ['function mintBatch(address[] to, uint256[] tokenIds)'] },
      {
        tokenType: 'ERC1155',
        functions: ['function mintToMany(address[] to, uint256[] ids, uint256[] amounts)'],
      },
    ],
  },
  ADMIN_MINT_MULTIPLE_NO_ID: {
    description:
      'Admin mint of a quantity of ERC-721 tokens whose ids the contract assigns (read from the Transfer events)',
    forms: [{ tokenType: 'ERC721', functions: ['function mintBatchNoId(address to, uint256 quantity)'] }],
  },
  MINT_VOUCHER: {
    description:
      'ERC-721 mint by the buyer with a voucher signed by the service (EIP-712 MintVoucher); nonces(minter) is the next voucher nonce',
    forms: [
      {
        tokenType: 'ERC721',
        functions: [
          'function mintWithVoucher(MintVoucher voucher, bytes signature) payable',
          'function nonces(address minter) view returns (uint256)',
        ],
      },
    ],
  },
  ERC2981: {
    description: 'ERC-2981 royalty information',
    interfaceId: '0x2a55205a',
    forms: [{ functions: [ROYALTY_INFO] }],
  },
  CONTRACT_ROYALTY: {
    description: 'A default (collection-wide) ERC-2981 royalty the service can set',
    forms: [
      { functions: ['function setDefaultRoyalty(address receiver, uint96 feeNumerator)', ROYALTY_INFO] },
    ],
  },
  PER_TOKEN_ROYALTY: {
    description: 'A per-token ERC-2981 royalty the service can set',
    forms: [
      {
        functions: [
          'function setTokenRoyalty(uint256 tokenId, address receiver, uint96 feeNumerator)',
          ROYALTY_INFO,
        ],
      },
    ],
  },
  CONTRACT_URI: {
    description: 'Collection-level metadata URI (ERC-7572)',
    forms: [{ functions: ['function contractURI() view returns (string)'] }],
  },
  SET_BASE_URI: {
    description: 'The base of the token URIs can be changed',
    forms: [{ functions: ['function setBaseURI(string baseURI)'] }],
  },
  SET_CONTRACT_URI: {
    description: 'The collection-level metadata URI can be changed',
    forms: [{ functions: ['function setContractURI(string contractURI)'] }],
  },
  FREEZE_METADATA: {
    description: 'Metadata URIs can be frozen for good',
    forms: [{ functions: ['function freezeMetadata()'] }],
  },
  BURN_TOKEN: {
    description: 'Holders burn tokens: burn(tokenId) on ERC-721, burn(account, id, value) on ERC-1155',
    forms: [
      { tokenType: 'ERC721', functions: ['function burn(uint256 tokenId)'] },
      { tokenType: 'ERC1155', functions: ['function burn(address account, uint256 id, uint256 value)'] },
    ],
  },
  BATCH_TRANSFER: {
    description:
      'Transfers to many recipients in one call, by the holder or an approved operator: transferToMany(from, to[], tokenIds[]) on ERC-721, transferToMany(from, to[], ids[], amounts[]) on ERC-1155',
    forms: [
      {
        tokenType: 'ERC721',
        functions: ['function transferToMany(address from, address[] to, uint256[] tokenIds)'],
      },
      {
        tokenType: 'ERC1155',
        functions: ['function transferToMany(address from, address[] to, uint256[] ids, uint256[] amounts)'],
      },
    ],
  },
  MAX_SUPPLY: {
    description: 'A maximum supply the contract enforces',
    forms: [{ functions: ['function maxSupply() view returns (uint256)'] }],
  },
  OZ_ACCESS_CONTROL: {
    description: 'OpenZeppelin AccessControl roles',
    interfaceId: '0x7965db0b',
    forms: [
      {
        functions: [
          'function hasRole(bytes32 role, address account) view returns (bool)',
          'function getRoleAdmin(bytes32 role) view returns (bytes32)',
          'function grantRole(bytes32 role, address account)',
          'function revokeRole(bytes32 role, address account)',
          'function renounceRole(bytes32 role, address callerConfirmation)',
        ],
      },
    ],
  },
  OZ_OWNABLE: {
    description: 'OpenZeppelin Ownable single owner',
    forms: [
      {
        functions: [
          'function owner() view returns (address)',
          'function transferOwnership(address newOwner)',
          'function renounceOwnership()',
        ],
      },
    ],
  },
};

// `uint` and `int` are aliases of `uint256` and `int256`; selectors use the full names.
const TYPE_ALIASES: Record<string, string> = { uint: 'uint256', int: 'int256' };

function canonicalType(parameter: AbiParameter): string {
  const match = /^([^[]*)(.*)$/.exec(parameter.type)!;
  const base = match[1]!;
  const dimensions = match[2]!;
  if (base === 'tuple') {
    const components = 'components' in parameter ? parameter.components : [];
    return `(${components.map(canonicalType).join(',')})${dimensions}`;
  }
  return `${TYPE_ALIASES[base] ?? base}${dimensions}`;
}

/** `name(type,…)` as the function selector is computed: no names, structs as tuples. */
export function canonicalSignature(fn: AbiFunction): string {
  return `${fn.name}(${(fn.inputs ?? []).map(canonicalType).join(',')})`;
}

/** The 4-byte selector of a function, from its canonical signature. */
export function functionSelector(fn: AbiFunction): Hex {
  return toFunctionSelector(`function ${canonicalSignature(fn)}`);
}

export interface CapabilityForm {
  readonly tokenType: TokenType | null;
  /** The functions' ABI fragments, as documented to integrators. */
  readonly abi: readonly AbiFunction[];
  /** Their canonical signatures, e.g. `mint(address,uint256)`. */
  readonly signatures: readonly string[];
}

export interface CapabilityDefinition {
  readonly name: CapabilityName;
  readonly description: string;
  readonly interfaceId: Hex | null;
  /** Alternatives: a contract has the capability when it satisfies any one form. */
  readonly forms: readonly CapabilityForm[];
  /** Every form's fragments, without duplicates. */
  readonly abi: readonly AbiFunction[];
}

function buildForm(source: FormSource): CapabilityForm {
  const abi = (parseAbi([MINT_VOUCHER_STRUCT, ...source.functions]) as Abi).filter(
    (item): item is AbiFunction => item.type === 'function',
  );
  if (abi.length !== source.functions.length) throw new Error(`bad capability form ${source.functions}`);
  return Object.freeze({
    tokenType: source.tokenType ?? null,
    abi: Object.freeze(abi),
    signatures: Object.freeze(abi.map(canonicalSignature)),
  });
}

function buildDefinition(name: CapabilityName): CapabilityDefinition {
  const source = SOURCES[name];
  const forms = source.forms.map(buildForm);
  const seen = new Set<string>();
  const abi = forms
    .flatMap((form) => form.abi)
    .filter((fragment) => {
      const signature = canonicalSignature(fragment);
      if (seen.has(signature)) return false;
      seen.add(signature);
      return true;
    });
  return Object.freeze({
    name,
    description: source.description,
    interfaceId: source.interfaceId ?? null,
    forms: Object.freeze(forms),
    abi: Object.freeze(abi),
  });
}

/** The registry, in CAPABILITY_NAMES order. */
export const CAPABILITIES: readonly CapabilityDefinition[] = Object.freeze(
  CAPABILITY_NAMES.map(buildDefinition),
);

const BY_NAME = new Map(CAPABILITIES.map((c) => [c.name, c]));

export function capabilityDefinition(name: CapabilityName): CapabilityDefinition {
  return BY_NAME.get(name)!;
}

/**
 * The ABI fragments to call a capability on a contract of `tokenType` (the mint paths use this to
 * pick `mint(address,uint256)` or `mint(address,uint256,uint256)`); undefined when the capability
 * has no form for that standard.
 */
export function capabilityAbi(
  name: CapabilityName,
  tokenType: TokenType,
): readonly AbiFunction[] | undefined {
  const forms = capabilityDefinition(name).forms;
  return (forms.find((f) => f.tokenType === tokenType) ?? forms.find((f) => f.tokenType === null))?.abi;
}

/** Capability rule 3: the capabilities a contract has, from its ABI alone, in registry order. */
export function capabilitiesOf(abi: Abi): CapabilityName[] {
  const declared = new Set(
    abi.filter((item): item is AbiFunction => item.type === 'function').map(canonicalSignature),
  );
  // Token standards first: the other forms may be bound to them.
  const tokenTypes = new Set<TokenType>();
  const found = new Set<CapabilityName>();
  for (const capability of CAPABILITIES) {
    const satisfied = capability.forms.some(
      (form) =>
        (form.tokenType === null || tokenTypes.has(form.tokenType)) &&
        form.signatures.every((s) => declared.has(s)),
    );
    if (!satisfied) continue;
    found.add(capability.name);
    if (isTokenType(capability.name)) tokenTypes.add(capability.name);
  }
  return CAPABILITY_NAMES.filter((name) => found.has(name));
}

export function isTokenType(value: string): value is TokenType {
  return (TOKEN_TYPES as readonly string[]).includes(value);
}

/** The token standards among a contract's capabilities. */
export function tokenTypesOf(capabilities: readonly string[]): TokenType[] {
  return TOKEN_TYPES.filter((t) => capabilities.includes(t));
}

/**
 * Capability rule 1: a contract must be an ERC-721 or an ERC-1155 (and, when the caller names
 * the standard it will use the contract as, that one).
 */
export function assertTokenCapability(capabilities: readonly string[], tokenType?: TokenType | null): void {
  if (tokenType) {
    if (!capabilities.includes(tokenType))
      throw new ApiError(
        'MISSING_TOKEN_CAPABILITY',
        `the contract does not have the ${tokenType} capability (its ABI lacks the ${tokenType} functions)`,
      );
    return;
  }
  if (tokenTypesOf(capabilities).length === 0)
    throw new ApiError(
      'MISSING_TOKEN_CAPABILITY',
      'the contract has neither the ERC721 nor the ERC1155 capability (its ABI lacks their functions)',
    );
}

/** Capability rule 2: the contract can be minted through the service as a `tokenType` token. */
export function assertMintable(capabilities: readonly string[], tokenType: TokenType): void {
  assertTokenCapability(capabilities, tokenType);
  const accepted = MINT_CAPABILITIES[tokenType];
  if (!accepted.some((c) => capabilities.includes(c)))
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      `an ${tokenType} contract needs one of the capabilities ${accepted.join(', ')} to be minted through the service`,
    );
}
