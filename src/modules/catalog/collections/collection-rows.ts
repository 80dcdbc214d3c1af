import { assertOrganizationAccess, type Principal } from '../../../access/principal.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import * as repo from './collections.repository.ts';

/** A collection row read for a caller: the module's other services start here. */

export function findCollection(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return repo.findCollection(db, id);
}

/** The collection as `principal` may see it: another organization's answers NOT_FOUND. */
export async function getCollectionRow(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<CollectionRow> {
  return ownRow(principal, await repo.findCollection(db, id));
}

/**
 * getCollectionRow, the row locked until the caller's transaction ends (edits, locks and
 * deployments of one collection run one after another).
 */
export async function lockCollectionRow(db: Tx, principal: Principal, id: string): Promise<CollectionRow> {
  return ownRow(principal, await repo.findCollectionForUpdate(db, id));
}

function ownRow(principal: Principal, row: CollectionRow | undefined): CollectionRow {
  if (!row) throw new ApiError('NOT_FOUND', 'collection not found');
  assertOrganizationAccess(principal, row.organization_id, 'collection');
  return row;
}

/** 400 VALIDATION_FAILED naming one field. */
export function validationFailed(detail: string, path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', detail, { fields: [{ path, message }] });
}
