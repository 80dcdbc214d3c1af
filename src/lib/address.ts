import { getAddress } from 'viem';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * docs/api.md#conventions: any case is accepted, but a mixed-case address must carry a correct EIP-55
 * checksum. Returns the checksummed form, or undefined when the input is not acceptable.
 */
export function parseAddress(input: string): `0x${string}` | undefined {
  if (!HEX_ADDRESS.test(input)) return undefined;
  const checksummed = getAddress(input.toLowerCase());
  const body = input.slice(2);
  const uniformCase = body === body.toLowerCase() || body === body.toUpperCase();
  if (!uniformCase && checksummed !== input) return undefined;
  return checksummed;
}
