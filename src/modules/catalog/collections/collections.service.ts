import { isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { CapabilityName } from '../../../chain/capabilities.ts';
import type { Deps } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, CollectionUpdate } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { lockCollectionRow, validationFailed } from './collection-rows.ts';
import * as repo from './collections.repository.ts';
import type {
  Collection,
  CreateCollectionBody,
  EditCollectionBody,
  ListCollectionsQuery,
} from './collections.schemas.ts';
import { deploy } from './deployments.service.ts';
import { checkedRoyalty, sameRoyalty, updateRoyaltyOnChain } from './royalties.service.ts';

export type { CollectionRow } from '../../../db/schema.ts';
export { findCollection, getCollectionRow, lockCollectionRow } from './collection-rows.ts';

export function toCollection(row: CollectionRow): Collection {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    default_item_type_id: row.default_item_type_id,
    image_url: row.image_url,
    reveal_strategy: row.reveal_strategy,
    preview_metadata: row.preview_metadata,
    editable_metadata: row.editable_metadata,
    reveal_hidden: row.reveal_hidden,
    functions_enabled: row.functions_enabled,
    royalty_info: row.royalty_info,
    deployment:
      row.deployment_type === null || row.deployment_status === null || row.token_type === null
        ? null
        : {
            type: row.deployment_type,
            status: row.deployment_status,
            address: row.contract_address,
            capabilities: row.capabilities as CapabilityName[],
            network_id: row.network_id,
            symbol: row.symbol ?? '',
            token_id_assignment_strategy: row.token_id_assignment_strategy ?? 'AUTOMATIC',
            token_type: row.token_type,
            transaction_id: row.deployment_transaction_id,
            failure_reason: row.deployment_failure_reason,
          },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * Takes `count` consecutive AUTOMATIC token ids (the lock); see collections.repository.ts.
 */
export function takeTokenIds(db: Executor, collectionId: string, count: bigint): Promise<bigint> {
  return repo.takeTokenIds(db, collectionId, count);
}

export function listCollections(
  db: Executor,
  principal: Principal,
  query: ListCollectionsQuery,
): Promise<PageResult<CollectionRow>> {
  const { name, contract_address, token_type, network_id, order_by: _orderBy, ...page } = query;
  return repo.listCollections(db, page as PageParams, {
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
    name,
    contractAddress:
      contract_address === undefined ? undefined : checkedAddress(contract_address, '/contract_address'),
    tokenType: token_type,
    networkId: network_id,
  });
}

/**
 * Creates a collection in the caller's organization; with `deployment_request`, deploys it in the
 * same database transaction, so an invalid deployment request creates nothing.
 */
export async function createCollection(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: CreateCollectionBody,
): Promise<CollectionRow> {
  const revealStrategy = body.reveal_strategy ?? 'INSTANT';
  const previewMetadata = body.preview_metadata ?? null;
  checkPreviewMetadata(revealStrategy, previewMetadata, '/preview_metadata');
  const organizationId = principal.organizationId;
  if (body.default_item_type_id != null)
    await checkItemType(db, body.default_item_type_id, organizationId, '/default_item_type_id');
  const collection = await uniquelyNamed(body.name, () =>
    repo.insertCollection(db, {
      id: uuidv7(),
      organization_id: organizationId,
      name: body.name,
      default_item_type_id: body.default_item_type_id ?? null,
      image_url: body.image_url ?? null,
      reveal_strategy: revealStrategy,
      preview_metadata: previewMetadata === null ? null : JSON.stringify(previewMetadata),
      editable_metadata: body.editable_metadata ?? false,
      // Hidden until revealed when the reveal is delayed; shown at once otherwise.
      reveal_hidden: revealStrategy === 'DELAYED',
      functions_enabled: false,
      royalty_info: null,
    }),
  );
  if (!body.deployment_request) return collection;
  return deploy(db, deps, collection, body.deployment_request, '/deployment_request');
}

/**
 * Edits a collection (partial: only the attributes present change). The row is locked, so two
 * edits cannot both pass a one-way check (reveal_hidden, editable_metadata) on the same state.
 */
export async function editCollection(
  db: Tx,
  principal: Principal,
  id: string,
  body: EditCollectionBody,
): Promise<CollectionRow> {
  const current = await lockCollectionRow(db, principal, id);
  const patch: CollectionUpdate = {};

  if (body.name !== undefined && body.name !== current.name) patch.name = body.name;
  if (body.image_url !== undefined) patch.image_url = body.image_url;
  if (body.functions_enabled !== undefined) patch.functions_enabled = body.functions_enabled;
  if (body.default_item_type_id !== undefined) {
    if (body.default_item_type_id !== null)
      await checkItemType(db, body.default_item_type_id, current.organization_id, '/default_item_type_id');
    patch.default_item_type_id = body.default_item_type_id;
  }
  if (body.preview_metadata !== undefined) {
    checkPreviewMetadata(current.reveal_strategy, body.preview_metadata, '/preview_metadata');
    patch.preview_metadata = body.preview_metadata === null ? null : JSON.stringify(body.preview_metadata);
  }
  if (body.reveal_hidden !== undefined && body.reveal_hidden !== current.reveal_hidden) {
    // States: reveal_hidden true → false on a DELAYED collection, never back.
    if (body.reveal_hidden || current.reveal_strategy !== 'DELAYED') {
      throw new ApiError(
        'INVALID_STATE',
        current.reveal_strategy === 'DELAYED'
          ? 'a revealed collection cannot be hidden again (reveal_hidden goes from true to false only)'
          : 'only DELAYED collections are hidden and revealed',
      );
    }
    patch.reveal_hidden = false;
  }
  if (body.editable_metadata !== undefined && body.editable_metadata !== current.editable_metadata) {
    // States: editable_metadata true → false, never back.
    if (body.editable_metadata) {
      throw new ApiError(
        'INVALID_STATE',
        'metadata that was made non-editable cannot become editable again (editable_metadata goes from true to false only)',
      );
    }
    patch.editable_metadata = false;
  }
  if (body.royalty_info !== undefined) {
    const royalty = body.royalty_info === null ? null : checkedRoyalty(body.royalty_info, '/royalty_info');
    if (!sameRoyalty(royalty, current.royalty_info)) {
      await updateRoyaltyOnChain(db, current, royalty);
      patch.royalty_info = royalty === null ? null : JSON.stringify(royalty);
    }
  }

  if (Object.keys(patch).length === 0) return current;
  return uniquelyNamed(body.name ?? current.name, () => repo.updateCollection(db, id, patch));
}

/** The public capability list of a collection: empty until its contract is deployed. */
export async function getPublicCapabilities(
  db: Executor,
  id: string,
): Promise<{ capabilities: CapabilityName[] }> {
  const collection = await repo.findCollection(db, id);
  if (!collection) throw new ApiError('NOT_FOUND', 'collection not found');
  return { capabilities: collection.capabilities as CapabilityName[] };
}

// ---------------------------------------------------------------------------------- checks

/** preview_metadata: required for DELAYED, refused for INSTANT (which never shows it). */
function checkPreviewMetadata(
  strategy: CollectionRow['reveal_strategy'],
  preview: Record<string, unknown> | null,
  path: string,
): void {
  if (strategy === 'DELAYED' && preview === null)
    throw new ApiError(
      'PREVIEW_METADATA_REQUIRED',
      'a DELAYED collection needs preview_metadata, shown for every token until the reveal',
      { fields: [{ path, message: 'is required when reveal_strategy is DELAYED' }] },
    );
  if (strategy === 'INSTANT' && preview !== null)
    throw validationFailed(
      'an INSTANT collection has no preview_metadata',
      path,
      'must be absent or null when reveal_strategy is INSTANT',
    );
}

async function checkItemType(db: Executor, itemTypeId: string, organizationId: string, path: string) {
  if (!(await repo.itemTypeBelongsTo(db, itemTypeId, organizationId)))
    throw validationFailed(
      `item type ${itemTypeId} is not an item type of the organization`,
      path,
      "is not an item type of the collection's organization",
    );
}

/** Runs an insert or update that may take a name in use: 409 ALREADY_EXISTS then. */
async function uniquelyNamed<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, repo.COLLECTION_NAME_KEY))
      throw new ApiError(
        'ALREADY_EXISTS',
        `the organization already has a collection named ${JSON.stringify(name)}`,
      );
    throw error;
  }
}
