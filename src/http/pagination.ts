import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type TSchema, Type } from '@sinclair/typebox';
import { type SelectQueryBuilder, sql } from 'kysely';
import { preparedOnEachConnection } from '../db/prepared.ts';
import { ApiError } from '../lib/errors.ts';

/** List limits (docs/api.md#pagination): standard lists take 1..100, medium lists 1..1000. */
export type ListSize = 'standard' | 'medium';
const MAX_LIMIT: Record<ListSize, number> = { standard: 100, medium: 1000 };

export const OrderDirection = Type.Union([Type.Literal('ASC'), Type.Literal('DESC')]);

/** The query parameters every list operation takes; spread into the operation's query schema. */
export function listQueryProperties(size: ListSize) {
  return {
    // Optional in the document; the validator fills the default, so a handler always has a limit.
    limit: Type.Unsafe<number>(
      Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT[size], default: 100 })),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    order_direction: Type.Optional(OrderDirection),
  };
}

export function Page<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      results: Type.Array(item),
      cursor: Type.Union([Type.String(), Type.Null()]),
      has_more: Type.Boolean(),
      total_results: Type.Integer({ minimum: 0 }),
    },
    { title },
  );
}

export interface PageParams {
  limit: number;
  cursor?: string | undefined;
  order_direction?: 'ASC' | 'DESC' | undefined;
}

export interface PageResult<T> {
  results: T[];
  cursor: string | null;
  has_more: boolean;
  total_results: number;
}

export type SortKind = 'timestamp' | 'text' | 'integer';

export interface PaginateOptions<O> {
  page: PageParams;
  /** Everything that shaped the query (filters, order_by): a cursor only works with the same. */
  filters: Record<string, unknown>;
  /** Qualified column of the sort key, e.g. `users.created_at`, and how to read it from a row. */
  sortColumn: string;
  sortKind: SortKind;
  sortValue: (row: O) => Date | string | number;
  /** Qualified id column breaking ties; ids are unique, so the order is total. */
  idColumn: string;
  idKind: 'uuid' | 'integer';
  idValue: (row: O) => string | number;
  /** total_results when it is known without counting the rows (a maintained counter). */
  total?: () => Promise<number>;
  /**
   * The query takes few shapes (no filter of free form, such as a list of attributes): its page
   * and count queries run as prepared statements (src/db/prepared.ts).
   */
  prepared?: boolean;
}

interface CursorPayload {
  v: string | number;
  i: string | number;
  f: string;
}

/**
 * Keyset pagination for every list operation: the cursor carries the last row's sort key and id
 * and a fingerprint of the filters, so pages never skip or repeat rows when new ones arrive, and
 * a deep page costs the same as the first.
 */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  options: PaginateOptions<O>,
): Promise<PageResult<O>> {
  const direction = options.page.order_direction ?? 'ASC';
  // The sort and id columns are part of the fingerprint too, so a cursor of one list (say users)
  // is refused by another (say organizations) instead of silently paging it from a foreign key.
  const fingerprint = fingerprintOf({
    ...options.filters,
    order_direction: direction,
    '@sort': options.sortColumn,
    '@id': options.idColumn,
  });
  const sortRef = sql.ref(options.sortColumn);
  const idRef = sql.ref(options.idColumn);

  let pageQuery = query;
  if (options.page.cursor !== undefined) {
    const after = decodeCursor(options.page.cursor, fingerprint, options.sortKind, options.idKind);
    const value = options.sortKind === 'timestamp' ? sql`${after.v}::timestamptz` : sql`${after.v}`;
    pageQuery =
      direction === 'ASC'
        ? pageQuery.where(sql<boolean>`(${sortRef}, ${idRef}) > (${value}, ${after.i})`)
        : pageQuery.where(sql<boolean>`(${sortRef}, ${idRef}) < (${value}, ${after.i})`);
  }
  const order = direction === 'ASC' ? sql`ASC` : sql`DESC`;
  const ordered = pageQuery
    .orderBy(sql`${sortRef} ${order}`)
    .orderBy(sql`${idRef} ${order}`)
    .limit(options.page.limit + 1);
  if (options.prepared) preparedOnEachConnection(ordered.compile().sql);
  const rowsPromise = ordered.execute();
  const counted = query.clearSelect().clearOrderBy().select(sql<string>`count(*)`.as('total'));
  if (options.prepared && !options.total) preparedOnEachConnection(counted.compile().sql);
  const countPromise = options.total
    ? options.total()
    : (counted.executeTakeFirstOrThrow() as Promise<{ total: string }>).then((row) => Number(row.total));
  const [rows, total] = await Promise.all([rowsPromise, countPromise]);

  const hasMore = rows.length > options.page.limit;
  const results = hasMore ? rows.slice(0, options.page.limit) : rows;
  const last = results.at(-1);
  let cursor: string | null = null;
  if (hasMore && last !== undefined) {
    const sortValue = options.sortValue(last);
    cursor = encodeCursor({
      v: sortValue instanceof Date ? sortValue.toISOString() : sortValue,
      i: options.idValue(last),
      f: fingerprint,
    });
  }
  return { results, cursor, has_more: hasMore, total_results: total };
}

/** A short digest of everything that shaped a list, carried in its cursors. */
export function fingerprintOf(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .filter((k) => filters[k] !== undefined)
      .sort()
      .map((k) => [k, filters[k]]),
  );
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

/**
 * A cursor as the API hands it out: `<payload>.<HMAC-SHA256 of the payload>`, base64url both.
 * `paginate` and `paginateStatic` know no key; the API scope signs the `cursor` of every list
 * response and verifies the `cursor` query parameter before the route sees it, so a position the
 * service did not issue (however well typed) is INVALID_CURSOR. The key comes from SECRET_KEY, so
 * every instance sharing it honours the others' cursors.
 */
export function signCursor(key: Uint8Array, cursor: string): string {
  return `${cursor}.${cursorMac(key, cursor)}`;
}

/** The payload of a cursor signed by `signCursor` with this key; anything else is INVALID_CURSOR. */
export function verifyCursor(key: Uint8Array, signed: string): string {
  const dot = signed.lastIndexOf('.');
  if (dot > 0) {
    const cursor = signed.slice(0, dot);
    const given = Buffer.from(signed.slice(dot + 1));
    const expected = Buffer.from(cursorMac(key, cursor));
    if (given.length === expected.length && timingSafeEqual(given, expected)) return cursor;
  }
  throw new ApiError('INVALID_CURSOR', 'cursor is not one this service issued');
}

function cursorMac(key: Uint8Array, cursor: string): string {
  return createHmac('sha256', key).update(cursor).digest('base64url');
}

export function encodeCursor(payload: object): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isoRoundTrips(value: string): boolean {
  const date = new Date(value);
  return !Number.isNaN(date.getTime()) && date.toISOString() === value;
}

function validKey(value: unknown, kind: SortKind | 'uuid'): boolean {
  switch (kind) {
    case 'timestamp':
      // Exactly what encodeCursor writes: Date.parse alone accepts forms ("1", "May 5") that
      // PostgreSQL rejects, which would turn a forged cursor into a 500.
      return typeof value === 'string' && ISO_TIMESTAMP.test(value) && isoRoundTrips(value);
    case 'text':
      return typeof value === 'string';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'uuid':
      return typeof value === 'string' && UUID.test(value);
  }
}

/** The JSON inside a cursor; anything that is not one this service issued is INVALID_CURSOR. */
export function parseCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ApiError('INVALID_CURSOR', 'cursor is not one this service issued');
  }
}

function decodeCursor(
  cursor: string,
  fingerprint: string,
  sortKind: SortKind,
  idKind: 'uuid' | 'integer',
): CursorPayload {
  const payload = parseCursor(cursor);
  if (
    typeof payload !== 'object' ||
    payload === null ||
    !('v' in payload && 'i' in payload && 'f' in payload) ||
    !validKey(payload.v, sortKind) ||
    !validKey(payload.i, idKind === 'uuid' ? 'uuid' : 'integer')
  ) {
    throw new ApiError('INVALID_CURSOR', 'cursor is not one this service issued');
  }
  if (payload.f !== fingerprint) {
    throw new ApiError('INVALID_CURSOR', 'cursor was issued for other filters or another order');
  }
  return payload as CursorPayload;
}
