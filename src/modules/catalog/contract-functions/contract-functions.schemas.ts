import { type Static, Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../../http/pagination.ts';
import { Uuid } from '../../../http/schemas.ts';

/**
 * docs/api.md#conventions: a contract function id is its 4-byte selector without 0x (any case in,
 * lowercase out).
 */
export const FunctionId = Type.String({
  pattern: '^[0-9a-fA-F]{8}$',
  description: 'The function selector without 0x: 8 hex digits (answered lowercase)',
});

export const CollectionFunctionsParams = Type.Object(
  { collection_id: Uuid },
  { additionalProperties: false },
);
export type CollectionFunctionsParams = Static<typeof CollectionFunctionsParams>;

export const ContractFunctionParams = Type.Object(
  { collection_id: Uuid, function_id: FunctionId },
  { additionalProperties: false },
);
export type ContractFunctionParams = Static<typeof ContractFunctionParams>;

const AbiFunctionFragment = Type.Object(
  {
    type: Type.Literal('function'),
    name: Type.String(),
    inputs: Type.Optional(Type.Array(Type.Unknown())),
    outputs: Type.Optional(Type.Array(Type.Unknown())),
    stateMutability: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: "The function's entry of the collection's JSON ABI" },
);

export const ContractFunction = Type.Object(
  {
    id: { ...FunctionId, pattern: '^[0-9a-f]{8}$' },
    abi: AbiFunctionFragment,
    enabled: Type.Boolean({
      description:
        "Whether the function may be executed through the API (execute also needs the collection's functions_enabled); false until switched on",
    }),
  },
  { $id: 'ContractFunction', title: 'ContractFunction' },
);
export type ContractFunction = Static<typeof ContractFunction>;

export const ListContractFunctionsQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});
export type ListContractFunctionsQuery = Static<typeof ListContractFunctionsQuery>;

export const EditContractFunctionBody = Type.Object(
  { enabled: Type.Boolean({ description: 'true allows execute, false refuses it' }) },
  { additionalProperties: false },
);
export type EditContractFunctionBody = Static<typeof EditContractFunctionBody>;

export const EditContractFunctionResponse = Type.Object(
  { contract_func: Type.Ref(ContractFunction) },
  { title: 'EditContractFunctionResponse' },
);

const ArgumentsField = Type.Union(
  [Type.Array(Type.Unknown(), { maxItems: 256 }), Type.Null({ description: 'No arguments' })],
  {
    description:
      "The function's arguments in ABI order (null: none): integers as decimal strings (or safe integers), addresses and bytes as 0x hex, booleans, strings, tuples as arrays or objects by component name, arrays as arrays",
  },
);

export const ContractFunctionArgumentsBody = Type.Object(
  { arguments: ArgumentsField },
  { additionalProperties: false },
);
export type ContractFunctionArgumentsBody = Static<typeof ContractFunctionArgumentsBody>;

export const CallResult = Type.Object(
  {
    result: Type.Unknown({
      description:
        'The decoded return value as JSON: integers as decimal strings, addresses EIP-55 checksummed, bytes as 0x hex, tuples as objects keyed by component name (arrays when a component is unnamed), arrays as arrays. One output: that value; several: an object keyed by output name (an array when an output is unnamed); none: null.',
    }),
  },
  { title: 'ContractFunctionCallResult' },
);
export type CallResult = Static<typeof CallResult>;

export const ExecuteResult = Type.Object(
  {
    transaction_id: { ...Uuid, description: 'The FUNCTION_EXECUTE transaction (GET /v1/transactions/{id})' },
  },
  { title: 'ContractFunctionExecuteResult' },
);
export type ExecuteResult = Static<typeof ExecuteResult>;
