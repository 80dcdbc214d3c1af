import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAddress } from './address.ts';

// The EIP-55 test vectors.
const CHECKSUMMED = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
] as const;

/**
 * docs/api.md#conventions: any case in, a mixed case only with a valid EIP-55 checksum; checksummed
 * out.
 */
describe('parseAddress', () => {
  it('accepts an all-lowercase address and returns it checksummed', () => {
    for (const address of CHECKSUMMED) assert.equal(parseAddress(address.toLowerCase()), address);
  });

  it('accepts an all-uppercase address (0x prefix kept lowercase) and returns it checksummed', () => {
    for (const address of CHECKSUMMED)
      assert.equal(parseAddress(`0x${address.slice(2).toUpperCase()}`), address);
  });

  it('accepts a mixed-case address with a correct checksum as it is', () => {
    for (const address of CHECKSUMMED) assert.equal(parseAddress(address), address);
  });

  it('rejects a mixed-case address with a wrong checksum', () => {
    for (const address of CHECKSUMMED) {
      // Flip the case of one letter: still mixed case, no longer the checksum.
      const i = address.slice(2).search(/[a-fA-F]/) + 2;
      const c = address[i]!;
      const flipped = `${address.slice(0, i)}${c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()}${address.slice(i + 1)}`;
      assert.notEqual(flipped, address);
      assert.equal(parseAddress(flipped), undefined, flipped);
    }
  });

  it('accepts the zero address and addresses made of digits only', () => {
    assert.equal(parseAddress(`0x${'0'.repeat(40)}`), `0x${'0'.repeat(40)}`);
    assert.equal(parseAddress(`0x${'1234567890'.repeat(4)}`), `0x${'1234567890'.repeat(4)}`);
  });

  it('rejects what is not a 20-byte hex address', () => {
    for (const input of [
      '',
      '0x',
      '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed0',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg',
      ' 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\n',
    ]) {
      assert.equal(parseAddress(input), undefined, JSON.stringify(input));
    }
  });
});
