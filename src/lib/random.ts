import { randomInt } from 'node:crypto';

/**
 * The first `count` of `items` chosen uniformly at random, in random order (a partial
 * Fisher–Yates shuffle), drawn from the operating system's cryptographic source: who gets which
 * item of a drop must not be predictable from earlier draws, as Math.random's would be.
 */
export function randomSample<T>(items: readonly T[], count: number): T[] {
  const pool = [...items];
  const taken = Math.min(count, pool.length);
  for (let i = 0; i < taken; i++) {
    const j = i + randomInt(pool.length - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, taken);
}
