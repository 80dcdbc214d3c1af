import { randomBytes } from 'node:crypto';
import type { TestEnv } from '../../../../../test/harness.ts';

/**
 * What the organizations test files share (organizations-create, organizations-list,
 * organizations-edit.test.ts). Each file has a database of its own (setupTest in its `before`):
 * no test depends on another file's rows.
 */

/** A well-formed id that names no row. */
export const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';

export function uniqueName(label: string): string {
  return `${label} ${randomBytes(4).toString('hex')}`;
}

/** network_ids must name registered networks; rows inserted directly (no node is called). */
export async function insertNetworks(env: TestEnv): Promise<void> {
  for (const id of [1, 31337]) await env.insertNetwork(id);
}

/** The number of organizations in the file's database, read at each call (`env` is set in `before`). */
export function organizationCounter(env: () => TestEnv): () => Promise<number> {
  return async function organizationCount(): Promise<number> {
    const row = await env()
      .database.db.selectFrom('organizations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
}
