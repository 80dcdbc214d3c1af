import { type Abi, type AbiParameter, parseAbiParameter } from 'viem';
import { parseAddress } from '../../../lib/address.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';

/**
 * Contract ABIs and argument values as clients send them in JSON (CUSTOM deployments, verify
 * capabilities, contract function calls), checked strictly before viem sees them: viem encodes
 * some malformed input without complaint (an unknown type, `"zz"` as `bytes`, a number as a
 * `string`), which would put a broken contract or call on chain instead of answering 400.
 */

const ITEM_TYPES = new Set(['function', 'constructor', 'event', 'error', 'fallback', 'receive']);
const WITH_INPUTS = new Set(['function', 'constructor', 'event', 'error']);
const NAMED = new Set(['function', 'event', 'error']);
const MUTABILITIES = new Set(['pure', 'view', 'nonpayable', 'payable']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** An elementary type or `tuple`, then array dimensions: `uint256`, `tuple[2][]`. */
const TYPE_SYNTAX = /^([a-z][a-z0-9]*)((?:\[(?:[1-9][0-9]*)?\])*)$/;
/** Nesting of tuples and arrays in one parameter; real contracts stay far below. */
const MAX_DEPTH = 16;
/** Enough to fix a request; a hostile ABI with thousands of faults gets the first ones. */
const MAX_FIELD_ERRORS = 50;

class Faults {
  readonly list: FieldError[] = [];
  add(path: string, message: string): void {
    if (this.list.length < MAX_FIELD_ERRORS) this.list.push({ path, message });
  }
  throwIfAny(detail: string): void {
    if (this.list.length > 0) throw new ApiError('VALIDATION_FAILED', detail, { fields: this.list });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseParameter(
  value: unknown,
  path: string,
  faults: Faults,
  options: { event: boolean; depth: number },
): AbiParameter | undefined {
  if (!isRecord(value)) {
    faults.add(path, 'must be an ABI parameter object');
    return undefined;
  }
  if (value.name !== undefined && typeof value.name !== 'string')
    faults.add(`${path}/name`, 'must be a string');
  if (value.internalType !== undefined && typeof value.internalType !== 'string')
    faults.add(`${path}/internalType`, 'must be a string');
  if (options.event && value.indexed !== undefined && typeof value.indexed !== 'boolean')
    faults.add(`${path}/indexed`, 'must be a boolean');
  const match = typeof value.type === 'string' ? TYPE_SYNTAX.exec(value.type) : null;
  if (!match) {
    faults.add(`${path}/type`, 'must be a Solidity ABI type such as uint256, address[] or tuple');
    return undefined;
  }
  const base = match[1]!;
  const dimensions = match[2]!;
  const common = {
    ...(typeof value.name === 'string' && { name: value.name }),
    ...(typeof value.internalType === 'string' && { internalType: value.internalType }),
    ...(options.event && typeof value.indexed === 'boolean' && { indexed: value.indexed }),
  };
  if (base === 'tuple') {
    if (!Array.isArray(value.components) || value.components.length === 0) {
      faults.add(`${path}/components`, 'a tuple needs a non-empty components array');
      return undefined;
    }
    if (options.depth >= MAX_DEPTH) {
      faults.add(path, `tuples are nested more than ${MAX_DEPTH} deep`);
      return undefined;
    }
    const components = value.components.map((c, i) =>
      parseParameter(c, `${path}/components/${i}`, faults, { event: false, depth: options.depth + 1 }),
    );
    if (components.some((c) => c === undefined)) return undefined;
    return { ...common, type: `tuple${dimensions}`, components: components as AbiParameter[] };
  }
  if (value.components !== undefined) {
    faults.add(`${path}/components`, 'only tuple types have components');
    return undefined;
  }
  try {
    // viem rejects unknown types (uint257, bytes33) and spells aliases out (uint → uint256).
    return { ...common, type: parseAbiParameter(`${base}${dimensions}`).type };
  } catch {
    faults.add(`${path}/type`, `${value.type} is not a Solidity ABI type`);
    return undefined;
  }
}

function parseParameters(
  value: unknown,
  path: string,
  faults: Faults,
  event: boolean,
): AbiParameter[] | undefined {
  if (!Array.isArray(value)) {
    faults.add(path, 'must be an array of ABI parameters');
    return undefined;
  }
  const parameters = value.map((p, i) => parseParameter(p, `${path}/${i}`, faults, { event, depth: 0 }));
  return parameters.some((p) => p === undefined) ? undefined : (parameters as AbiParameter[]);
}

function parseItem(value: unknown, path: string, faults: Faults): Abi[number] | undefined {
  if (!isRecord(value)) {
    faults.add(path, 'must be an ABI entry object');
    return undefined;
  }
  const type = value.type;
  if (typeof type !== 'string' || !ITEM_TYPES.has(type)) {
    faults.add(`${path}/type`, `must be one of ${[...ITEM_TYPES].join(', ')}`);
    return undefined;
  }
  const before = faults.list.length;
  if (NAMED.has(type) && (typeof value.name !== 'string' || !IDENTIFIER.test(value.name)))
    faults.add(`${path}/name`, `a ${type} needs a name that is a Solidity identifier`);
  if (value.stateMutability !== undefined && !MUTABILITIES.has(value.stateMutability as string))
    faults.add(`${path}/stateMutability`, `must be one of ${[...MUTABILITIES].join(', ')}`);
  if (type === 'event' && value.anonymous !== undefined && typeof value.anonymous !== 'boolean')
    faults.add(`${path}/anonymous`, 'must be a boolean');
  const inputs = WITH_INPUTS.has(type)
    ? parseParameters(value.inputs, `${path}/inputs`, faults, type === 'event')
    : [];
  const outputs =
    type === 'function' && value.outputs !== undefined
      ? parseParameters(value.outputs, `${path}/outputs`, faults, false)
      : [];
  if (faults.list.length > before || inputs === undefined || outputs === undefined) return undefined;

  const stateMutability =
    (value.stateMutability as 'pure' | 'view' | 'nonpayable' | 'payable' | undefined) ??
    (type === 'constructor' || type === 'fallback'
      ? 'nonpayable'
      : type === 'receive'
        ? 'payable'
        : undefined);
  switch (type) {
    case 'function':
      return {
        type,
        name: value.name as string,
        inputs,
        outputs,
        stateMutability: stateMutability ?? 'nonpayable',
      };
    case 'constructor':
      return { type, inputs, stateMutability: stateMutability as 'nonpayable' | 'payable' };
    case 'event':
      return {
        type,
        name: value.name as string,
        inputs,
        ...(typeof value.anonymous === 'boolean' && { anonymous: value.anonymous }),
      } as Abi[number];
    case 'error':
      return { type, name: value.name as string, inputs };
    case 'fallback':
      return { type, stateMutability: stateMutability as 'nonpayable' | 'payable' };
    default:
      return { type: 'receive', stateMutability: 'payable' };
  }
}

/**
 * A JSON ABI (Solidity ABI specification) as viem types, with type aliases spelled out; keys
 * outside the specification (solc's `internalType` is kept) are dropped. Every fault is reported
 * with its JSON pointer under `path` (e.g. `/abi/3/inputs/0/type`).
 */
export function parseAbiJson(value: readonly unknown[], path: string): Abi {
  const faults = new Faults();
  const items = value.map((item, i) => parseItem(item, `${path}/${i}`, faults));
  const constructors = items.flatMap((item, i) => (item?.type === 'constructor' ? [i] : []));
  for (const i of constructors.slice(1)) faults.add(`${path}/${i}`, 'an ABI has at most one constructor');
  faults.throwIfAny('the ABI is invalid');
  return items as Abi;
}

const DECIMAL = /^-?(0|[1-9][0-9]*)$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;

function integerFromJson(type: string, value: unknown, path: string, faults: Faults): bigint | undefined {
  const signed = type.startsWith('int');
  const bits = Number(type.slice(signed ? 3 : 4) || 256);
  const min = signed ? -(2n ** BigInt(bits - 1)) : 0n;
  const max = signed ? 2n ** BigInt(bits - 1) - 1n : 2n ** BigInt(bits) - 1n;
  let parsed: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) parsed = BigInt(value);
  else if (typeof value === 'string' && DECIMAL.test(value) && value.length <= 80) parsed = BigInt(value);
  if (parsed === undefined || parsed < min || parsed > max) {
    faults.add(path, `must be a ${type}: an integer from ${min} to ${max}, as a decimal string or a number`);
    return undefined;
  }
  return parsed;
}

function valueFromJson(parameter: AbiParameter, value: unknown, path: string, faults: Faults): unknown {
  const type = parameter.type;
  const array = /^(.*)\[([0-9]*)\]$/.exec(type);
  if (array) {
    const length = array[2] === '' ? undefined : Number(array[2]);
    if (!Array.isArray(value) || (length !== undefined && value.length !== length)) {
      faults.add(path, `must be an array${length === undefined ? '' : ` of ${length} elements`} (${type})`);
      return undefined;
    }
    const element = { ...parameter, type: array[1]! } as AbiParameter;
    return value.map((v, i) => valueFromJson(element, v, `${path}/${i}`, faults));
  }
  if (type === 'tuple') {
    const components = 'components' in parameter ? parameter.components : [];
    const named = components.every((c) => c.name);
    if (Array.isArray(value) && value.length === components.length)
      return components.map((c, i) => valueFromJson(c, value[i], `${path}/${i}`, faults));
    if (named && isRecord(value)) {
      for (const key of Object.keys(value))
        if (!components.some((c) => c.name === key))
          faults.add(`${path}/${key}`, 'is not a field of the tuple');
      return components.map((c) => {
        if (Object.hasOwn(value, c.name!))
          return valueFromJson(c, value[c.name!], `${path}/${c.name}`, faults);
        faults.add(`${path}/${c.name}`, 'is required');
        return undefined;
      });
    }
    faults.add(
      path,
      `must be an array of ${components.length} values${named ? ` or an object with ${components.map((c) => c.name).join(', ')}` : ''}`,
    );
    return undefined;
  }
  if (/^u?int[0-9]*$/.test(type)) return integerFromJson(type, value, path, faults);
  if (type === 'address') {
    const address = typeof value === 'string' ? parseAddress(value) : undefined;
    if (!address) faults.add(path, 'must be an address (0x and 40 hex digits; mixed case must be EIP-55)');
    return address;
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') faults.add(path, 'must be true or false');
    return value;
  }
  if (type === 'string') {
    if (typeof value !== 'string') faults.add(path, 'must be a string');
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !HEX_BYTES.test(value))
      faults.add(path, 'must be 0x-prefixed hex bytes');
    return value;
  }
  const fixed = /^bytes([0-9]+)$/.exec(type);
  if (fixed) {
    const size = Number(fixed[1]);
    if (typeof value !== 'string' || !HEX_BYTES.test(value) || value.length !== 2 + 2 * size)
      faults.add(path, `must be ${size} bytes as 0x-prefixed hex (${2 * size} hex digits)`);
    return value;
  }
  faults.add(path, `arguments of type ${type} are not supported`);
  return undefined;
}

/**
 * JSON argument values for `parameters` as viem takes them (Uint256 as decimal strings or safe
 * integers → bigint; addresses checksummed; tuples as arrays or objects by component name).
 */
export function abiValuesFromJson(
  parameters: readonly AbiParameter[],
  values: readonly unknown[],
  path: string,
): unknown[] {
  const faults = new Faults();
  if (values.length !== parameters.length) {
    const types = parameters.map((p) => p.type).join(', ');
    faults.add(path, `expects ${parameters.length} arguments (${types}), got ${values.length}`);
    faults.throwIfAny('the arguments do not match the ABI');
  }
  const result = parameters.map((p, i) => valueFromJson(p, values[i], `${path}/${i}`, faults));
  faults.throwIfAny('the arguments do not match the ABI');
  return result;
}
