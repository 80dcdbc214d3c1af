import type { Executor } from '../../../db/executor.ts';

/** Selector → enabled of the functions of a collection that were ever switched. */
export async function listFunctionStates(db: Executor, collectionId: string): Promise<Map<string, boolean>> {
  const rows = await db
    .selectFrom('collection_functions')
    .select(['selector', 'enabled'])
    .where('collection_id', '=', collectionId)
    .execute();
  return new Map(rows.map((r) => [r.selector, r.enabled]));
}

export async function findFunctionEnabled(
  db: Executor,
  collectionId: string,
  selector: string,
): Promise<boolean | undefined> {
  const row = await db
    .selectFrom('collection_functions')
    .select('enabled')
    .where('collection_id', '=', collectionId)
    .where('selector', '=', selector)
    .executeTakeFirst();
  return row?.enabled;
}

export async function upsertFunctionEnabled(
  db: Executor,
  collectionId: string,
  selector: string,
  enabled: boolean,
): Promise<boolean> {
  const row = await db
    .insertInto('collection_functions')
    .values({ collection_id: collectionId, selector, enabled })
    .onConflict((oc) =>
      oc.columns(['collection_id', 'selector']).doUpdateSet({ enabled, updated_at: new Date() }),
    )
    .returning('enabled')
    .executeTakeFirstOrThrow();
  return row.enabled;
}
