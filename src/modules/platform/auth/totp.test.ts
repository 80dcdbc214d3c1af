import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currentTotp, newTotpSecret, totpStep } from './totp.ts';

const STEP_MS = 30_000;

describe('TOTP codes', () => {
  const secret = newTotpSecret();
  // A fixed instant in the middle of a step, far from the real clock.
  const at = Date.UTC(2031, 0, 1, 0, 0, 15);
  const step = Math.floor(at / STEP_MS);

  it('answers the step of a code checked at a given instant, not at the current time', () => {
    assert.equal(totpStep(currentTotp(secret, at), secret, at), step);
  });

  it('accepts one step of clock drift either way, and no more', () => {
    assert.equal(totpStep(currentTotp(secret, at - STEP_MS), secret, at), step - 1);
    assert.equal(totpStep(currentTotp(secret, at + STEP_MS), secret, at), step + 1);
    assert.equal(totpStep(currentTotp(secret, at - 2 * STEP_MS), secret, at), undefined);
    assert.equal(totpStep(currentTotp(secret, at + 2 * STEP_MS), secret, at), undefined);
  });

  it('rejects a code of another secret and anything but six digits', () => {
    assert.equal(totpStep(currentTotp(newTotpSecret(), at), secret, at), undefined);
    for (const code of ['', '12345', '1234567', '12345a', ' 123456']) {
      assert.equal(totpStep(code, secret, at), undefined, code);
    }
  });
});
