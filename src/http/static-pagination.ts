import { ApiError } from '../lib/errors.ts';
import { encodeCursor, fingerprintOf, type PageParams, type PageResult, parseCursor } from './pagination.ts';

export interface StaticPageOptions<T> {
  page: PageParams;
  /** Names the list: a cursor of one list is refused by another. */
  list: string;
  /** Everything that shaped the list (filters): a cursor only works with the same. */
  filters: Record<string, unknown>;
  /** The unique sort key of an item (its name, for a registry). */
  key: (item: T) => string;
}

interface CursorPayload {
  k: string;
  f: string;
}

/**
 * docs/api.md#pagination over a list held in memory (a static registry): the same envelope,
 * limits and cursor rules as the keyset pagination of database lists. The cursor carries the
 * last key, so a page never repeats or skips an item even when the list changes between
 * releases, and a fingerprint of the list, filters and order, so a foreign cursor is refused.
 */
export function paginateStatic<T>(items: readonly T[], options: StaticPageOptions<T>): PageResult<T> {
  const direction = options.page.order_direction ?? 'ASC';
  const fingerprint = fingerprintOf({
    ...options.filters,
    order_direction: direction,
    '@list': options.list,
  });
  const sign = direction === 'ASC' ? 1 : -1;
  const sorted = [...items].sort((a, b) => sign * compare(options.key(a), options.key(b)));
  let remaining = sorted;
  if (options.page.cursor !== undefined) {
    const after = decodeCursor(options.page.cursor, fingerprint).k;
    remaining = sorted.filter((item) => sign * compare(options.key(item), after) > 0);
  }
  const results = remaining.slice(0, options.page.limit);
  const hasMore = remaining.length > options.page.limit;
  const last = results.at(-1);
  return {
    results,
    cursor: hasMore && last !== undefined ? encodeCursor({ k: options.key(last), f: fingerprint }) : null,
    has_more: hasMore,
    total_results: items.length,
  };
}

/** Code-unit order, as PostgreSQL's "C" collation: stable whatever the host's locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function decodeCursor(cursor: string, fingerprint: string): CursorPayload {
  const payload = parseCursor(cursor);
  if (
    typeof payload !== 'object' ||
    payload === null ||
    !('k' in payload && 'f' in payload) ||
    typeof payload.k !== 'string'
  ) {
    throw new ApiError('INVALID_CURSOR', 'cursor is not one this service issued');
  }
  if (payload.f !== fingerprint) {
    throw new ApiError('INVALID_CURSOR', 'cursor was issued for other filters or another order');
  }
  return payload as CursorPayload;
}
