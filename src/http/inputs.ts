import { type Address, maxUint256 } from 'viem';
import { parseAddress } from '../lib/address.ts';
import { ApiError } from '../lib/errors.ts';

/**
 * Checks of docs/api.md#conventions that a schema cannot express, each a 400 VALIDATION_FAILED
 * naming the field by its JSON pointer (`/royalty_info/receiver`, `querystring:/token_id`,
 * `params:/token_id`).
 */

/** The field's name for a sentence: `royalty_info.receiver` for `/royalty_info/receiver`. */
function fieldName(path: string): string {
  return path.replace(/^\w+:/, '').replace(/^\//, '').replaceAll('/', '.');
}

/** An address in any case; a mixed-case one must carry a valid EIP-55 checksum. Checksummed. */
export function checkedAddress(input: string, path: string): Address {
  const address = parseAddress(input);
  if (!address)
    throw new ApiError('VALIDATION_FAILED', `${fieldName(path)} has an invalid EIP-55 checksum`, {
      fields: [{ path, message: 'invalid EIP-55 checksum' }],
    });
  return address;
}

/** A Uint256 decimal string (its pattern checked by the schema) within 2^256-1. */
export function checkedUint256(value: string, path: string): bigint {
  const parsed = BigInt(value);
  if (parsed > maxUint256)
    throw new ApiError('VALIDATION_FAILED', `${fieldName(path)} is above 2^256-1`, {
      fields: [{ path, message: 'must be at most 2^256-1' }],
    });
  return parsed;
}
