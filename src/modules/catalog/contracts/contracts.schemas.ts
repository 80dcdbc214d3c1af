import { type Static, Type } from '@sinclair/typebox';
import { CAPABILITY_NAMES } from '../../../chain/capabilities.ts';
import { TOKEN_TYPES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { Nullable, StringEnum } from '../../../http/schemas.ts';

export const TokenType = StringEnum(TOKEN_TYPES, { description: 'The token standard' });
export type TokenType = Static<typeof TokenType>;

export const CapabilityName = StringEnum(CAPABILITY_NAMES, {
  description: 'A capability of the registry (GET /v1/public/capabilities)',
});

/** EIP-3860: the largest init code a deployment may carry (49,152 bytes). */
const MAX_INIT_CODE_BYTES = 49_152;

/**
 * A JSON ABI entry. Only `type` is checked here; the service checks the rest against the
 * Solidity ABI specification and answers every fault with its path. Other keys are allowed, as
 * compilers add their own (`internalType`, `gas`…).
 */
const AbiEntry = Type.Object(
  {
    type: Type.String({
      maxLength: 64,
      description: 'function, constructor, event, error, fallback or receive',
    }),
  },
  { additionalProperties: true, description: 'A JSON ABI entry (Solidity ABI specification)' },
);

/** The fields of a contract the service deploys (CUSTOM deployments and their verification). */
export const CustomContractFields = {
  abi: Type.Array(AbiEntry, { maxItems: 5000, description: "The contract's JSON ABI" }),
  bytecode: Type.String({
    pattern: '^0x([0-9a-fA-F]{2})+$',
    maxLength: 2 + 2 * MAX_INIT_CODE_BYTES,
    description: 'Creation bytecode, 0x-prefixed hex (at most 49,152 bytes, EIP-3860)',
  }),
  constructor_args: Type.Array(Type.Unknown(), {
    maxItems: 256,
    description:
      "The constructor's arguments in ABI order: integers as decimal strings (or safe integers), addresses and bytes as 0x hex, tuples as arrays or objects",
  }),
};

export const VerifyCapabilitiesBody = Type.Object(
  {
    ...CustomContractFields,
    token_type: Type.Optional(
      Nullable({ ...TokenType, description: 'The standard the contract must have; null: either' }),
    ),
  },
  { additionalProperties: false },
);
export type VerifyCapabilitiesBody = Static<typeof VerifyCapabilitiesBody>;

export const Capabilities = Type.Object(
  { capabilities: Type.Array(CapabilityName) },
  { title: 'Capabilities' },
);
export type Capabilities = Static<typeof Capabilities>;

const AbiFragment = Type.Object(
  {
    type: Type.Literal('function'),
    name: Type.String(),
    inputs: Type.Array(Type.Unknown()),
    outputs: Type.Array(Type.Unknown()),
    stateMutability: Type.String(),
  },
  { additionalProperties: true, description: 'A JSON ABI function entry' },
);

export const KnownCapability = Type.Object(
  {
    name: CapabilityName,
    description: Type.String({
      description: 'What the service can do with it, and which token standard each form applies to',
    }),
    abi: Type.Array(AbiFragment, {
      description:
        'The functions the capability requires (matched by name and input types). Where forms differ per token standard (ADMIN_MINT_SINGLE, BURN_TOKEN), a contract needs the form of its own standard only.',
    }),
  },
  { title: 'KnownCapability' },
);
export type KnownCapability = Static<typeof KnownCapability>;

export const ListCapabilitiesQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});
export type ListCapabilitiesQuery = Static<typeof ListCapabilitiesQuery>;
