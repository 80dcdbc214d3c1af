import { type AbiParameter, getAddress, type Hex } from 'viem';

/**
 * ABI values as viem decodes them, turned into JSON a client can read without a Solidity
 * library: the inverse of abiValuesFromJson (src/modules/catalog/contracts/abi-json.ts).
 * - every integer (uint8…uint256, int8…int256) is a decimal string: viem gives bigint, or number
 *   up to 48 bits, and JSON numbers lose precision above 2^53;
 * - addresses are EIP-55 checksummed; bytes and bytesN stay 0x hex; bool and string as they are;
 * - a tuple is an object keyed by component name when every component is named (and the names
 *   are distinct), else an array in component order;
 * - arrays, fixed or dynamic, are arrays of converted elements.
 */
export function abiValueToJson(parameter: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[([0-9]*)\]$/.exec(parameter.type);
  if (array) {
    const element = { ...parameter, type: array[1]! } as AbiParameter;
    return (value as readonly unknown[]).map((v) => abiValueToJson(element, v));
  }
  if (parameter.type === 'tuple') {
    const components = 'components' in parameter ? parameter.components : [];
    const values = components.map((c, i) =>
      abiValueToJson(
        c,
        Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[c.name ?? String(i)],
      ),
    );
    return keyedByName(components, values);
  }
  if (/^u?int[0-9]*$/.test(parameter.type)) return BigInt(value as bigint | number).toString();
  if (parameter.type === 'address') return getAddress(value as Hex);
  if (parameter.type.startsWith('bytes')) return (value as string).toLowerCase();
  return value;
}

/**
 * The outputs of a call (`values` holds one decoded value per output) as one JSON value: null
 * without outputs, the value itself for one output, an object keyed by output name for several
 * (an array when an output is unnamed), as for a tuple.
 */
export function abiOutputsToJson(outputs: readonly AbiParameter[], values: readonly unknown[]): unknown {
  if (outputs.length === 0) return null;
  const converted = outputs.map((o, i) => abiValueToJson(o, values[i]));
  if (outputs.length === 1) return converted[0];
  return keyedByName(outputs, converted);
}

function keyedByName(parameters: readonly AbiParameter[], values: unknown[]): unknown {
  const names = parameters.map((p) => p.name ?? '');
  const named = names.every((n) => n !== '') && new Set(names).size === names.length;
  if (!named) return values;
  return Object.fromEntries(names.map((n, i) => [n, values[i]]));
}
