import { type Abi, type BaseError, encodeDeployData, type Hex } from 'viem';
import {
  assertTokenCapability,
  CAPABILITIES,
  type CapabilityDefinition,
  type CapabilityName,
  capabilitiesOf,
} from '../../../chain/capabilities.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { paginateStatic } from '../../../http/static-pagination.ts';
import { ApiError } from '../../../lib/errors.ts';
import { abiValuesFromJson, parseAbiJson } from './abi-json.ts';
import type { Capabilities, KnownCapability, TokenType } from './contracts.schemas.ts';

export interface CustomContractInput {
  abi: readonly unknown[];
  bytecode: string;
  constructor_args: readonly unknown[];
}

export interface CustomContract {
  abi: Abi;
  bytecode: Hex;
  /** The constructor arguments as viem takes them. */
  constructorArgs: readonly unknown[];
  /** Bytecode followed by the encoded arguments: the data of the deployment transaction. */
  deployData: Hex;
  capabilities: CapabilityName[];
}

/**
 * A contract the service would deploy, checked whole: the ABI against the Solidity ABI
 * specification, the constructor arguments against the ABI's constructor (encoded with viem's
 * encodeDeployData, as the deployment will be), and its capabilities computed (rule 3). Faults
 * are 400 VALIDATION_FAILED with JSON pointers under `path` (`/deployment_request/custom` when
 * the fields are nested).
 */
export function parseCustomContract(input: CustomContractInput, path = ''): CustomContract {
  const abi = parseAbiJson(input.abi, `${path}/abi`);
  const abiConstructor = abi.find((item) => item.type === 'constructor');
  if (!abiConstructor && input.constructor_args.length > 0) {
    throw new ApiError('VALIDATION_FAILED', 'the arguments do not match the ABI', {
      fields: [
        { path: `${path}/constructor_args`, message: 'the ABI has no constructor: pass no arguments' },
      ],
    });
  }
  const constructorArgs = abiValuesFromJson(
    abiConstructor?.inputs ?? [],
    input.constructor_args,
    `${path}/constructor_args`,
  );
  const bytecode = input.bytecode as Hex;
  let deployData: Hex;
  try {
    deployData = encodeDeployData({ abi, bytecode, args: constructorArgs });
  } catch (error) {
    const message = (error as BaseError).shortMessage ?? 'cannot be encoded for the constructor';
    throw new ApiError('VALIDATION_FAILED', 'the arguments do not match the ABI', {
      fields: [{ path: `${path}/constructor_args`, message }],
    });
  }
  return { abi, bytecode, constructorArgs, deployData, capabilities: capabilitiesOf(abi) };
}

/**
 * Verify capabilities: the capabilities of a contract the caller means to deploy; it must have a
 * token type (ERC721 or ERC1155, and the one asked for) or it is 422 MISSING_TOKEN_CAPABILITY.
 */
export function verifyCapabilities(
  input: CustomContractInput & { token_type?: TokenType | null | undefined },
): Capabilities {
  const contract = parseCustomContract(input);
  assertTokenCapability(contract.capabilities, input.token_type ?? null);
  return { capabilities: contract.capabilities };
}

function toKnownCapability(capability: CapabilityDefinition): KnownCapability {
  return {
    name: capability.name,
    description: capability.description,
    abi: capability.abi.map((fn) => ({ ...fn, inputs: [...fn.inputs], outputs: [...fn.outputs] })),
  };
}

const KNOWN_CAPABILITIES = CAPABILITIES.map(toKnownCapability);

/** The registry, a page at a time, ordered by name. */
export function listKnownCapabilities(page: PageParams): PageResult<KnownCapability> {
  return paginateStatic(KNOWN_CAPABILITIES, {
    page,
    list: 'capabilities',
    filters: {},
    key: (capability) => capability.name,
  });
}
