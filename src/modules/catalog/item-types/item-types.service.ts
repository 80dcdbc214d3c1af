import { isDeepStrictEqual } from 'node:util';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ItemTypeRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import * as repo from './item-types.repository.ts';
import type { CreateItemTypeBody, EditItemTypeBody, ItemType } from './item-types.schemas.ts';
import {
  attributeErrors,
  cacheValidator,
  compileJsonSchema,
  EXAMPLE_JSON_SCHEMA,
  META_JSON_SCHEMA,
  validatorOf,
} from './json-schema.ts';

export type { ItemTypeRow } from '../../../db/schema.ts';

export function toItemType(row: ItemTypeRow): ItemType {
  return {
    id: row.id,
    name: row.name,
    json_schema: row.json_schema,
    organization_id: row.organization_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function getItemType(db: Executor, principal: Principal, id: string): Promise<ItemTypeRow> {
  const row = await repo.findItemType(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'item type not found');
  assertOrganizationAccess(principal, row.organization_id, 'item type');
  return row;
}

/**
 * Without organization_id a platform admin lists every organization's item types; anyone else
 * lists their own organization's (another organization's id gives an empty page, never a hint).
 */
export function listItemTypes(
  db: Executor,
  principal: Principal,
  page: PageParams,
  organizationId: string | undefined,
): Promise<PageResult<ItemTypeRow>> {
  if (!isPlatformAdmin(principal)) {
    if (organizationId !== undefined && organizationId !== principal.organizationId) {
      return Promise.resolve({ results: [], cursor: null, has_more: false, total_results: 0 });
    }
    return repo.listItemTypes(db, page, { organizationId: principal.organizationId });
  }
  return repo.listItemTypes(db, page, { organizationId });
}

export async function createItemType(
  db: Executor,
  principal: Principal,
  body: CreateItemTypeBody,
): Promise<ItemTypeRow> {
  const organizationId = body.organization_id ?? principal.organizationId;
  if (organizationId !== principal.organizationId) {
    // As for inviting users: another organization is the platform's to serve.
    if (!isPlatformAdmin(principal))
      throw new ApiError('FORBIDDEN', 'only a platform admin may create item types for another organization');
    if (!(await findOrganization(db, organizationId)))
      throw new ApiError('NOT_FOUND', 'organization not found');
  }
  const validate = compileJsonSchema(body.json_schema);
  const row = await repo.insertItemType(db, {
    id: uuidv7(),
    organization_id: organizationId,
    name: body.name,
    json_schema: body.json_schema,
  });
  cacheValidator(row, validate);
  return row;
}

const REVALIDATION_BATCH = 1000;

/**
 * Edit rule: json_schema may change while no item uses the type, or when every
 * item of the type validates against the new schema; else 409 INVALID_STATE naming the first
 * item (in creation order) that does not. The type stays locked until the edit commits, and item
 * writes lock it FOR SHARE, so no item can slip in against the old schema meanwhile.
 */
export async function editItemType(
  db: Tx,
  principal: Principal,
  id: string,
  body: EditItemTypeBody,
): Promise<ItemTypeRow> {
  const current = await repo.findItemTypeForUpdate(db, id);
  if (!current) throw new ApiError('NOT_FOUND', 'item type not found');
  assertOrganizationAccess(principal, current.organization_id, 'item type');
  const validate = compileJsonSchema(body.json_schema);
  const schemaChanged = !isDeepStrictEqual(current.json_schema, body.json_schema);
  if (schemaChanged) {
    let after: repo.TypedItem | undefined;
    for (;;) {
      const batch = await repo.itemsOfTypeBatch(db, id, after, REVALIDATION_BATCH);
      for (const item of batch) {
        const errors = attributeErrors(validate, item.attributes, '/attributes');
        if (errors.length > 0) {
          const first = errors[0]!;
          throw new ApiError(
            'INVALID_STATE',
            `item ${item.id} does not validate against the new json_schema (${first.path} ${first.message}): json_schema may change only while every item of the type still validates`,
          );
        }
      }
      if (batch.length < REVALIDATION_BATCH) break;
      after = batch.at(-1);
    }
  }
  const row = await repo.updateItemType(db, id, { name: body.name, json_schema: body.json_schema });
  cacheValidator(row, validate);
  return row;
}

export function metaSchema(): { example_json_schema: object; meta_json_schema: object } {
  return { example_json_schema: EXAMPLE_JSON_SCHEMA, meta_json_schema: META_JSON_SCHEMA };
}

/**
 * The item types items are about to be written against, by id, locked FOR SHARE until the
 * caller's transaction ends (so a concurrent schema edit waits, see editItemType).
 */
export async function itemTypesForItemWrites(
  db: Tx,
  ids: readonly string[],
): Promise<Map<string, ItemTypeRow>> {
  const rows = await repo.findItemTypesForShare(db, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.id, r]));
}

/** Attributes checked against the type's schema: the failures as fields under `prefix`. */
export function validateAttributes(itemType: ItemTypeRow, attributes: unknown, prefix: string): FieldError[] {
  return attributeErrors(validatorOf(itemType), attributes, prefix);
}
