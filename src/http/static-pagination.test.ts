import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../lib/errors.ts';
import { paginateStatic } from './static-pagination.ts';

const ITEMS = ['delta', 'alpha', 'echo', 'charlie', 'bravo'].map((name) => ({ name }));
const options = { list: 'letters', filters: {}, key: (item: { name: string }) => item.name };

/** docs/api.md#pagination over an in-memory list. */
describe('paginateStatic', () => {
  it('sorts by key in code-unit order and cuts pages with a cursor', () => {
    const first = paginateStatic(ITEMS, { ...options, page: { limit: 2 } });
    assert.deepEqual(
      first.results.map((i) => i.name),
      ['alpha', 'bravo'],
    );
    assert.equal(first.has_more, true);
    assert.equal(first.total_results, 5);
    const second = paginateStatic(ITEMS, { ...options, page: { limit: 2, cursor: first.cursor! } });
    assert.deepEqual(
      second.results.map((i) => i.name),
      ['charlie', 'delta'],
    );
    const last = paginateStatic(ITEMS, { ...options, page: { limit: 2, cursor: second.cursor! } });
    assert.deepEqual(
      last.results.map((i) => i.name),
      ['echo'],
    );
    assert.equal(last.has_more, false);
    assert.equal(last.cursor, null);
  });

  it('has no cursor when the page holds the rest exactly', () => {
    const page = paginateStatic(ITEMS, { ...options, page: { limit: 5 } });
    assert.equal(page.has_more, false);
    assert.equal(page.cursor, null);
  });

  it('pages descending', () => {
    const first = paginateStatic(ITEMS, { ...options, page: { limit: 3, order_direction: 'DESC' } });
    assert.deepEqual(
      first.results.map((i) => i.name),
      ['echo', 'delta', 'charlie'],
    );
    const rest = paginateStatic(ITEMS, {
      ...options,
      page: { limit: 3, order_direction: 'DESC', cursor: first.cursor! },
    });
    assert.deepEqual(
      rest.results.map((i) => i.name),
      ['bravo', 'alpha'],
    );
  });

  it('neither repeats nor skips when an item is added or removed between pages', () => {
    const first = paginateStatic(ITEMS, { ...options, page: { limit: 2 } });
    const changed = [...ITEMS.filter((i) => i.name !== 'bravo'), { name: 'able' }, { name: 'foxtrot' }];
    const next = paginateStatic(changed, { ...options, page: { limit: 10, cursor: first.cursor! } });
    assert.deepEqual(
      next.results.map((i) => i.name),
      ['charlie', 'delta', 'echo', 'foxtrot'],
    );
  });

  it('refuses a cursor of another list, other filters or another order with INVALID_CURSOR', () => {
    const { cursor } = paginateStatic(ITEMS, { ...options, page: { limit: 1 } });
    const invalid = (error: unknown) => error instanceof ApiError && error.code === 'INVALID_CURSOR';
    assert.throws(
      () => paginateStatic(ITEMS, { ...options, list: 'other', page: { limit: 1, cursor: cursor! } }),
      invalid,
    );
    assert.throws(
      () => paginateStatic(ITEMS, { ...options, filters: { a: 1 }, page: { limit: 1, cursor: cursor! } }),
      invalid,
    );
    assert.throws(
      () =>
        paginateStatic(ITEMS, { ...options, page: { limit: 1, cursor: cursor!, order_direction: 'DESC' } }),
      invalid,
    );
    for (const forged of [
      '%%%',
      Buffer.from('null').toString('base64url'),
      Buffer.from('{"k":2,"f":"x"}').toString('base64url'),
    ]) {
      assert.throws(() => paginateStatic(ITEMS, { ...options, page: { limit: 1, cursor: forged } }), invalid);
    }
  });
});
