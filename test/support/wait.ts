import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Bounded poll: the value once `probe` returns one, or a failure naming what never happened. For
 * work a worker does in the background (deliveries, settlements), never a timing assertion.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}
