/** Maps with at most `limit` calls in flight, keeping the input order in the result. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  });
  await Promise.all(workers);
  return results;
}

/**
 * `run` shared by callers that come together: each call is answered by a run of its key that
 * starts after the call, shared with every call of that key made before the run starts. At most
 * one run per key is in flight and one waits; a hundred calls at once cost two runs, not a
 * hundred.
 */
export function coalescing<K>(run: (key: K) => Promise<void>): (key: K) => Promise<void> {
  const running = new Map<K, Promise<void>>();
  const waiting = new Map<K, Promise<void>>();
  return (key) => {
    const queued = waiting.get(key);
    if (queued) return queued;
    const next = (running.get(key) ?? Promise.resolve())
      .catch(() => {})
      .then(() => {
        waiting.delete(key);
        const current = run(key);
        running.set(key, current);
        return current.finally(() => {
          if (running.get(key) === current) running.delete(key);
        });
      });
    waiting.set(key, next);
    return next;
  };
}
