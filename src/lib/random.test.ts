import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomSample } from './random.ts';

describe('randomSample', () => {
  it('answers `count` distinct items of the pool, all of them when it asks for more', () => {
    const pool = [1, 2, 3, 4, 5, 6, 7, 8];
    const sample = randomSample(pool, 5);
    assert.equal(sample.length, 5);
    assert.equal(new Set(sample).size, 5);
    for (const value of sample) assert.ok(pool.includes(value));
    assert.deepEqual([...randomSample(pool, 20)].sort(), pool);
    assert.deepEqual(randomSample([], 3), []);
    assert.deepEqual(pool, [1, 2, 3, 4, 5, 6, 7, 8], 'the pool is left as it was');
  });

  it('reaches every order of a small pool (the chance of missing one in 2,000 draws is below 1e-150)', () => {
    const seen = new Set<string>();
    for (let draw = 0; draw < 2000; draw++) seen.add(randomSample(['a', 'b', 'c'], 3).join(''));
    assert.deepEqual([...seen].sort(), ['abc', 'acb', 'bac', 'bca', 'cab', 'cba']);
  });
});
