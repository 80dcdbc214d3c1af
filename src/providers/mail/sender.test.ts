import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveSender as fromHeader } from './address.ts';

const PLATFORM = 'Token Issuance Service <no-reply@tokens.test>';

describe("a message's From header", () => {
  it("is the transport's sender when the mail has no campaign sender", () => {
    assert.equal(fromHeader(null, PLATFORM), PLATFORM);
    assert.equal(fromHeader('  ', PLATFORM), PLATFORM);
  });

  it("puts a campaign's display name before the transport's address, quoted", () => {
    assert.equal(fromHeader('Acme via Tokens', PLATFORM), '"Acme via Tokens" <no-reply@tokens.test>');
    assert.equal(fromHeader('"Acme, Drops"', 'no-reply@tokens.test'), '"Acme, Drops" <no-reply@tokens.test>');
  });

  it('escapes quotes inside a name', () => {
    assert.equal(fromHeader('Acme "Drops"', PLATFORM), '"Acme \\"Drops\\"" <no-reply@tokens.test>');
  });

  it("falls back to the transport's sender for a name it cannot write (campaigns refuse them)", () => {
    assert.equal(fromHeader('"Acme "Drops""', PLATFORM), PLATFORM);
  });

  it("uses a campaign's own address as given", () => {
    assert.equal(fromHeader('Acme Drops <drops@acme.test>', PLATFORM), '"Acme Drops" <drops@acme.test>');
    assert.equal(fromHeader('<drops@acme.test>', PLATFORM), 'drops@acme.test');
    assert.equal(fromHeader('drops@acme.test', PLATFORM), 'drops@acme.test');
  });
});
