import { Type } from '@sinclair/typebox';
import type { Principal } from '../../../access/principal.ts';
import type { Executor } from '../../../db/executor.ts';
import type { CollectionRow } from '../../../db/schema.ts';
import { checkedUint256 } from '../../../http/inputs.ts';
import { Nullable, Uint256, Uuid } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { getCollectionRow } from '../collections/collections.service.ts';
import { assertItemsOfOrganization } from './items.service.ts';

/**
 * Which items a request names: the five selector forms, taken by mint
 * and transfer requests and, next, by listings and email claims. Declared once here: the schema
 * fields, their parser and the limit.
 */

/** Items one request may name (mint and transfer requests; docs/api.md#limits). */
export const MAX_ITEMS_PER_REQUEST = 100;
/**
 * The schema's bound on a selector's arrays: above MAX_ITEMS_PER_REQUEST, so a request naming
 * a few too many items is told TOO_MANY_ITEMS with their count; beyond it the validator refuses.
 */
const MAX_SELECTOR_ENTRIES = 10 * MAX_ITEMS_PER_REQUEST;

const TokenRange = Type.Object(
  {
    from_id: { ...Uint256, description: 'First token id, inclusive' },
    to_id: { ...Uint256, description: 'Last token id, inclusive (at least from_id)' },
  },
  { additionalProperties: false },
);

/** The selector fields, spread into a request body's schema. Exactly one form may be given. */
export const ITEM_SELECTOR_FIELDS = {
  item_id: Type.Optional(Nullable(Uuid)),
  item_ids: Type.Optional(
    Nullable(
      Type.Array(Uuid, {
        minItems: 1,
        maxItems: MAX_SELECTOR_ENTRIES,
        uniqueItems: true,
        description: `At most ${MAX_ITEMS_PER_REQUEST}, all of one collection`,
      }),
    ),
  ),
  collection_id: Type.Optional(
    Nullable({
      ...Uuid,
      description: `Alone: the first ${MAX_ITEMS_PER_REQUEST} qualifying items of the collection (creation order), reserved and ineligible items passed over. With token_ids or token_ranges: the collection the token ids belong to.`,
    }),
  ),
  token_ids: Type.Optional(
    Nullable(
      Type.Array(Uint256, {
        minItems: 1,
        maxItems: MAX_SELECTOR_ENTRIES,
        uniqueItems: true,
        description: `With collection_id: items named by token id; at most ${MAX_ITEMS_PER_REQUEST}; each must qualify`,
      }),
    ),
  ),
  token_ranges: Type.Optional(
    Nullable(
      Type.Array(TokenRange, {
        minItems: 1,
        maxItems: MAX_SELECTOR_ENTRIES,
        description: `With collection_id: inclusive ranges of token ids covering at most ${MAX_ITEMS_PER_REQUEST} ids; the qualifying items in them are taken, the others passed over`,
      }),
    ),
  ),
};

/** The five selector forms as a body carries them (null = absent). */
export interface SelectorFields {
  item_id?: string | null | undefined;
  item_ids?: readonly string[] | null | undefined;
  collection_id?: string | null | undefined;
  token_ids?: readonly string[] | null | undefined;
  token_ranges?: readonly { from_id: string; to_id: string }[] | null | undefined;
}

const SELECTOR_FIELDS = ['collection_id', 'item_id', 'item_ids', 'token_ids', 'token_ranges'] as const;

export interface TokenRange {
  from: bigint;
  to: bigint;
}

/**
 * Explicit forms (item_id, item_ids, token_ids) name items that must all qualify; open forms
 * (collection_id, token_ranges) take the qualifying items and pass over the others.
 */
export type ItemSelection =
  | { kind: 'items'; itemIds: string[] }
  | { kind: 'collection'; collectionId: string }
  | { kind: 'token_ids'; collectionId: string; tokenIds: bigint[] }
  | { kind: 'token_ranges'; collectionId: string; ranges: TokenRange[] };

/** A form a request may take: `collection_id+token_ids` is collection_id with token_ids. */
export type SelectorForm =
  | 'item_id'
  | 'item_ids'
  | 'collection_id'
  | 'collection_id+token_ids'
  | 'collection_id+token_ranges';

export const ALL_SELECTOR_FORMS: readonly SelectorForm[] = [
  'item_id',
  'item_ids',
  'collection_id',
  'collection_id+token_ids',
  'collection_id+token_ranges',
];

function describeForms(forms: readonly SelectorForm[]): string {
  const names = forms.map((f) => f.replace('+', ' + '));
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/**
 * Selection rules: exactly one of the forms the request takes (else INVALID_SELECTION); a list
 * naming more than `maxItems` items (ranges counted by the ids they cover) is TOO_MANY_ITEMS.
 */
export function parseItemSelection(
  fields: SelectorFields,
  options: { forms?: readonly SelectorForm[]; maxItems?: number } = {},
): ItemSelection {
  const forms = options.forms ?? ALL_SELECTOR_FORMS;
  const maxItems = options.maxItems ?? MAX_ITEMS_PER_REQUEST;
  const given = SELECTOR_FIELDS.filter((k) => fields[k] !== undefined && fields[k] !== null)
    .sort()
    .join('+');
  const tooMany = (what: string) =>
    new ApiError('TOO_MANY_ITEMS', `${what}: at most ${maxItems} items per request`);
  if (!(forms as readonly string[]).includes(given)) {
    throw new ApiError(
      'INVALID_SELECTION',
      given === ''
        ? `name the items: ${describeForms(forms)}`
        : `${given.replaceAll('+', ', ')} cannot be combined: give exactly one of ${describeForms(forms)}`,
    );
  }
  switch (given as SelectorForm) {
    case 'item_id':
      return { kind: 'items', itemIds: [fields.item_id!] };
    case 'item_ids': {
      const ids = fields.item_ids!;
      if (ids.length > maxItems) throw tooMany(`item_ids has ${ids.length} entries`);
      return { kind: 'items', itemIds: [...ids] };
    }
    case 'collection_id':
      return { kind: 'collection', collectionId: fields.collection_id! };
    case 'collection_id+token_ids': {
      const ids = fields.token_ids!;
      if (ids.length > maxItems) throw tooMany(`token_ids has ${ids.length} entries`);
      return {
        kind: 'token_ids',
        collectionId: fields.collection_id!,
        tokenIds: ids.map((id, i) => checkedUint256(id, `/token_ids/${i}`)),
      };
    }
    case 'collection_id+token_ranges': {
      const ranges = fields.token_ranges!.map((r, i) => {
        const range = {
          from: checkedUint256(r.from_id, `/token_ranges/${i}/from_id`),
          to: checkedUint256(r.to_id, `/token_ranges/${i}/to_id`),
        };
        if (range.from > range.to)
          throw new ApiError('VALIDATION_FAILED', `token_ranges/${i}: from_id is above to_id`, {
            fields: [{ path: `/token_ranges/${i}`, message: 'from_id must be at most to_id' }],
          });
        return range;
      });
      const covered = ranges.reduce((sum, r) => sum + (r.to - r.from + 1n), 0n);
      if (covered > BigInt(maxItems)) throw tooMany(`token_ranges cover ${covered} ids`);
      return { kind: 'token_ranges', collectionId: fields.collection_id!, ranges };
    }
  }
}

/**
 * The collection a selection's items belong to, as `principal` may see it (another
 * organization's items or collection answer NOT_FOUND). Named items must share one collection:
 * one request moves tokens of one contract.
 */
export async function collectionOfSelection(
  db: Executor,
  principal: Principal,
  selection: ItemSelection,
): Promise<CollectionRow> {
  if (selection.kind !== 'items') return getCollectionRow(db, principal, selection.collectionId);
  const items = await assertItemsOfOrganization(db, principal, selection.itemIds);
  const collectionIds = new Set(items.map((i) => i.collection_id));
  if (collectionIds.size > 1)
    throw new ApiError(
      'INVALID_SELECTION',
      'the items belong to several collections: one request, one collection',
    );
  return getCollectionRow(db, principal, items[0]!.collection_id);
}
