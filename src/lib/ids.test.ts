import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomToken, uuidv7 } from './ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** RFC 9562 UUIDv7: ids sort by creation time (docs/api.md#pagination: default list order ties). */
describe('uuidv7', () => {
  it('has the UUID layout, version 7 and the RFC 4122 variant', () => {
    for (let i = 0; i < 1000; i++) {
      const id = uuidv7();
      assert.match(id, UUID_V7);
      const bytes = Buffer.from(id.replaceAll('-', ''), 'hex');
      assert.equal(bytes[6]! >> 4, 0x7, 'version nibble');
      assert.equal(bytes[8]! >> 6, 0b10, 'variant bits');
    }
  });

  it('carries its timestamp in the first 48 bits', () => {
    const at = Date.UTC(2026, 10, 22, 10, 0, 0, 123);
    const id = uuidv7(at);
    assert.equal(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16), at);
    assert.equal(uuidv7(0).slice(0, 13), '00000000-0000');
    assert.equal(uuidv7(2 ** 48 - 1).slice(0, 13), 'ffffffff-ffff');
  });

  it('sorts as text in the order of its timestamps', () => {
    const base = Date.UTC(2026, 0, 1);
    const times = [0, 1, 2, 255, 256, 65_535, 65_536, 3_600_000, 86_400_000, 2 ** 40].map((d) => base + d);
    const ids = times.map((t) => uuidv7(t));
    assert.deepEqual([...ids].sort(), ids);
    // Independent of generation order.
    const shuffled = [...times].reverse().map((t) => uuidv7(t));
    assert.deepEqual([...shuffled].sort(), [...shuffled].reverse());
  });

  it('is unique', () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => uuidv7(at)));
    assert.equal(ids.size, 10_000);
  });
});

describe('randomToken', () => {
  it('is URL-safe with the requested entropy', () => {
    assert.match(randomToken(), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(randomToken(16), 'base64url').length, 16);
    assert.notEqual(randomToken(), randomToken());
  });
});
