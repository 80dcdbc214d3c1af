import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { centsOfUsdc, usdcOfCents } from './usdc.ts';

describe('USDC amounts', () => {
  it('writes USD cents as USDC with two decimals', () => {
    assert.equal(usdcOfCents(1250n), '12.50');
    assert.equal(usdcOfCents(5n), '0.05');
    assert.equal(usdcOfCents(0n), '0.00');
    assert.equal(usdcOfCents(123456789n), '1234567.89');
  });

  it('reads USDC amounts in whole cents, refusing anything else', () => {
    assert.equal(centsOfUsdc('12.50'), 1250n);
    assert.equal(centsOfUsdc('12.5'), 1250n);
    assert.equal(centsOfUsdc('12'), 1200n);
    assert.equal(centsOfUsdc('12.500000'), 1250n);
    for (const bad of ['12.505', '-1.00', '1e3', '', '.50', '01.00', '12.', ' 1.00'])
      assert.equal(centsOfUsdc(bad), undefined, bad);
  });
});
