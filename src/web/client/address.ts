import { getAddress, isAddress } from 'viem';

/**
 * An address as a person pastes it: 0x and 40 hex digits, all one case or mixed case with a valid
 * EIP-55 checksum (a typo in a checksummed address is caught); answered checksummed.
 */
export function checkAddress(text: string): { address: `0x${string}` } | { error: string } {
  const value = text.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(value))
    return { error: 'an address is 0x followed by 40 hexadecimal characters.' };
  if (!isAddress(value, { strict: true }))
    return { error: 'the address does not match its checksum (EIP-55): check for a typo.' };
  return { address: getAddress(value) };
}
