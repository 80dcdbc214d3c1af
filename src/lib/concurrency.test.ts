import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coalescing } from './concurrency.ts';

describe('coalescing', () => {
  it('answers each call with a run that starts after it, shared by the calls that came meanwhile', async () => {
    const started: number[] = [];
    let release: (() => void) | undefined;
    let calls = 0;
    const run = coalescing(async (key: number) => {
      started.push(key);
      calls++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const first = run(1);
    await Promise.resolve();
    await Promise.resolve();
    // The first run is in flight: the calls now wait for one more run, which they share.
    const later = [run(1), run(1), run(1)];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls, 1);
    release!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls, 2);
    release!();
    await Promise.all(later);
    assert.deepEqual(started, [1, 1]);
  });

  it('keeps keys apart, and a failed run fails only the calls it answers', async () => {
    const run = coalescing(async (key: string) => {
      if (key === 'bad') throw new Error('no');
    });
    await assert.rejects(run('bad'), /no/);
    await run('good');
    await assert.rejects(run('bad'), /no/);
  });
});
