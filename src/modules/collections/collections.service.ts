import type { Executor } from '../../db/database.ts';
import type { CollectionRow } from '../../db/schema.ts';
import { ApiError } from '../../http/errors.ts';
import { assertOrganizationAccess, type Principal } from '../auth/principal.ts';
import * as repo from './collections.repository.ts';

export type { CollectionRow } from '../../db/schema.ts';

export function findCollection(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return repo.findCollection(db, id);
}

/**
 * The collection as `principal` may see it: another organization's answers NOT_FOUND. With
 * `forUpdate` the row stays locked until the caller's transaction ends.
 */
export async function getCollectionRow(
  db: Executor,
  principal: Principal,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<CollectionRow> {
  const row = options.forUpdate
    ? await repo.findCollectionForUpdate(db, id)
    : await repo.findCollection(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'collection not found');
  assertOrganizationAccess(principal, row.organization_id, 'collection');
  return row;
}

export { takeTokenIds } from './collections.repository.ts';
