import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { assertError } from '../../test/assertions.ts';
import { setupTest, type TestEnv, testConfig } from '../../test/harness.ts';
import { buildApp } from '../app.ts';
import { uuidv7 } from '../lib/ids.ts';
import { createLogger } from '../lib/logger.ts';
import { createServiceContext } from '../wiring/ports.ts';
import { listQueryProperties } from './pagination.ts';

interface Page {
  results: { id: string; created_at: string }[];
  cursor: string | null;
  has_more: boolean;
  total_results: number;
}

/** docs/api.md#pagination, through GET /v1/organizations and GET /v1/users. */
describe('pagination', () => {
  let env: TestEnv;
  let token: string;
  let organizationCount: number;
  before(async () => {
    env = await setupTest();
    token = env.platformAdmin.token;
    for (let i = 0; i < 100; i++) await env.createOrganization();
    // Several rows sharing one creation time: their order (and the cursor) rests on the id.
    const sameInstant = new Date('2030-01-01T00:00:00.000Z');
    await env.database.db
      .insertInto('organizations')
      .values(
        Array.from({ length: 6 }, (_, i) => ({ id: uuidv7(), name: `Tie ${i}`, created_at: sameInstant })),
      )
      .execute();
    organizationCount = await countOrganizations();
  });
  after(() => env.close());

  async function countOrganizations(): Promise<number> {
    const row = await env.database.db
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function list(path: string, query: Record<string, string> = {}): Promise<Page> {
    const response = await env.call('GET', path, { token, query });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  /** Sorted by (created_at, id) in the given direction. */
  function assertOrdered(rows: Page['results'], direction: 'ASC' | 'DESC') {
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = direction === 'ASC' ? [rows[i - 1]!, rows[i]!] : [rows[i]!, rows[i - 1]!];
      const ordered = a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);
      assert.ok(ordered, `rows ${i - 1} and ${i} are out of ${direction} order: ${a.id} ${b.id}`);
    }
  }

  it('refuses a limit out of 1..100 on standard lists with 400, never clamping it', async () => {
    for (const limit of ['0', '101', '-1', '1.5', 'ten']) {
      const response = await env.call('GET', '/v1/organizations', { token, query: { limit } });
      assertError(response, 400, 'VALIDATION_FAILED');
    }
    assert.equal((await list('/v1/organizations', { limit: '1' })).results.length, 1);
    assert.equal((await list('/v1/organizations', { limit: '100' })).results.length, 100);
  });

  it('bounds medium lists to 1..1000', () => {
    const query = Type.Object(listQueryProperties('medium'));
    assert.ok(Value.Check(query, { limit: 1000 }));
    assert.ok(!Value.Check(query, { limit: 1001 }));
    assert.ok(!Value.Check(query, { limit: 0 }));
    assert.equal(Type.Object(listQueryProperties('standard')).properties.limit.maximum, 100);
  });

  it('answers 100 results by default, with has_more, a cursor and the total', async () => {
    assert.ok(organizationCount > 100);
    const page = await list('/v1/organizations');
    assert.equal(page.results.length, 100);
    assert.equal(page.has_more, true);
    assert.equal(typeof page.cursor, 'string');
    assert.equal(page.total_results, organizationCount);
    assertOrdered(page.results, 'ASC');
  });

  it('pages through every row once, in creation order, even while rows are inserted', async () => {
    const existing = (await env.database.db.selectFrom('organizations').select('id').execute()).map(
      (r) => r.id,
    );
    const seen: Page['results'] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list('/v1/organizations', { limit: '7', ...(cursor && { cursor }) });
      seen.push(...page.results);
      assert.equal(page.cursor === null, !page.has_more);
      cursor = page.cursor;
      pages++;
      // A new row sorts after every row served so far: it may show up later, never shift a page.
      await env.createOrganization();
    } while (cursor !== null);
    const ids = seen.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'a row was repeated');
    for (const id of existing) assert.ok(ids.includes(id), `row ${id} was skipped`);
    assertOrdered(seen, 'ASC');
    assert.ok(pages > 10);
  });

  it('pages newest first with order_direction DESC, without repeats or skips', async () => {
    const existing = (await env.database.db.selectFrom('organizations').select('id').execute()).map(
      (r) => r.id,
    );
    const seen: Page['results'] = [];
    let cursor: string | null = null;
    let last: Page;
    do {
      last = await list('/v1/organizations', {
        limit: '9',
        order_direction: 'DESC',
        ...(cursor && { cursor }),
      });
      seen.push(...last.results);
      cursor = last.cursor;
      // Newer than the rows still to come: it must not shift the pages that follow.
      await env.createOrganization();
    } while (cursor !== null);
    const ids = seen.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'a row was repeated');
    for (const id of existing) assert.ok(ids.includes(id), `row ${id} was skipped`);
    assertOrdered(seen, 'DESC');
    assert.equal(last.has_more, false);
    assert.equal(last.cursor, null);
  });

  it('answers cursor null and has_more false on the last page, and on a list that fits one page', async () => {
    const total = await countOrganizations();
    const exact = await list('/v1/organizations', { limit: '100', order_direction: 'DESC' });
    const rest = await list('/v1/organizations', {
      limit: '100',
      order_direction: 'DESC',
      cursor: exact.cursor!,
    });
    assert.equal(rest.results.length, total - 100);
    assert.equal(rest.has_more, false);
    assert.equal(rest.cursor, null);
    assert.equal(rest.total_results, total);

    const roles = await list('/v1/roles');
    assert.deepEqual(
      { n: roles.results.length, cursor: roles.cursor, has_more: roles.has_more, total: roles.total_results },
      { n: 3, cursor: null, has_more: false, total: 3 },
    );
  });

  it('refuses a cursor reused with other filters with 400 INVALID_CURSOR', async () => {
    const organization = await env.createOrganization();
    await env.createUser(organization.id, 'ORG_MEMBER');
    await env.createUser(organization.id, 'ORG_MEMBER');
    const all = await list('/v1/users', { limit: '1' });
    assert.ok(all.cursor);
    assertError(
      await env.call('GET', '/v1/users', {
        token,
        query: { limit: '1', cursor: all.cursor, organization_id: organization.id },
      }),
      400,
      'INVALID_CURSOR',
    );
    const filtered = await list('/v1/users', { limit: '1', organization_id: organization.id });
    assert.ok(filtered.cursor);
    assertError(
      await env.call('GET', '/v1/users', { token, query: { limit: '1', cursor: filtered.cursor } }),
      400,
      'INVALID_CURSOR',
    );
    // The same filters again: the cursor works, and the limit may change.
    const next = await list('/v1/users', {
      limit: '5',
      cursor: filtered.cursor,
      organization_id: organization.id,
    });
    assert.equal(next.results.length, 1);
  });

  it('refuses a cursor reused with the other order_direction, or on another list', async () => {
    const asc = await list('/v1/organizations', { limit: '1' });
    assertError(
      await env.call('GET', '/v1/organizations', {
        token,
        query: { limit: '1', cursor: asc.cursor!, order_direction: 'DESC' },
      }),
      400,
      'INVALID_CURSOR',
    );
    const users = await list('/v1/users', { limit: '1' });
    assert.ok(users.cursor);
    assertError(
      await env.call('GET', '/v1/organizations', { token, query: { cursor: users.cursor } }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('refuses a garbage or forged cursor with 400 INVALID_CURSOR, never a 500', async () => {
    const real = (await list('/v1/organizations', { limit: '1' })).cursor!;
    const payload = JSON.parse(Buffer.from(real.split('.')[0]!, 'base64url').toString('utf8'));
    const forge = (patch: Record<string, unknown>) =>
      Buffer.from(JSON.stringify({ ...payload, ...patch })).toString('base64url');
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    const cursors = [
      'garbage',
      '!!!',
      `${real}x`,
      encode('null'),
      encode('42'),
      encode('[]'),
      encode('{"v":1}'),
      // A cursor with its fingerprint intact but a sort key PostgreSQL would choke on.
      forge({ v: '1' }),
      forge({ v: '2024-02-30T00:00:00.000Z' }),
      forge({ v: 'May 5, 2024' }),
      forge({ v: 17 }),
      forge({ i: 'not-a-uuid' }),
      forge({ i: 7 }),
      forge({ f: 'other' }),
    ];
    for (const cursor of cursors) {
      const response = await env.call('GET', '/v1/organizations', { token, query: { cursor } });
      assertError(response, 400, 'INVALID_CURSOR');
    }
  });
  it('refuses a hand-made cursor with well-typed values: cursors are signed (HMAC), 400 INVALID_CURSOR', async () => {
    const first = await list('/v1/organizations', { limit: '2' });
    const real = first.cursor!;
    const [body] = real.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    // The fingerprint is kept, the keys are well typed: only the signature can tell them apart.
    const handMade = [
      body!,
      encode({ ...payload, i: uuidv7() }),
      encode({ ...payload, v: '2000-01-01T00:00:00.000Z' }),
      `${encode({ ...payload, v: '2000-01-01T00:00:00.000Z' })}.${real.split('.')[1] ?? ''}`,
      `${body}.${'A'.repeat(43)}`,
      `${body}.`,
    ];
    for (const cursor of handMade) {
      const response = await env.call('GET', '/v1/organizations', { token, query: { limit: '2', cursor } });
      assertError(response, 400, 'INVALID_CURSOR', { what: cursor });
    }
    // A static list (the capability registry) signs its cursors too.
    const capabilities = await list('/v1/public/capabilities', { limit: '2' });
    const [capabilityBody] = capabilities.cursor!.split('.');
    const capabilityPayload = JSON.parse(Buffer.from(capabilityBody!, 'base64url').toString('utf8'));
    for (const cursor of [capabilityBody!, encode({ ...capabilityPayload, k: 'A' })]) {
      const response = await env.call('GET', '/v1/public/capabilities', {
        token,
        query: { limit: '2', cursor },
      });
      assertError(response, 400, 'INVALID_CURSOR', { what: cursor });
    }
  });

  it('honours a cursor on another instance with the same SECRET_KEY, and refuses it under another key', async () => {
    const first = await list('/v1/organizations', { limit: '2' });
    const expected = await list('/v1/organizations', { limit: '2', cursor: first.cursor! });
    // An API key is a digest in the database: valid whatever SECRET_KEY an instance has.
    const key = await env.call('POST', '/v1/api-keys', { token, body: { name: 'cursor instances' } });
    assert.equal(key.statusCode, 201, key.body);
    const apiKey = key.json().key as string;
    const instance = async (overrides: Record<string, string>) => {
      const ctx = createServiceContext(
        testConfig(env.databaseUrl, overrides),
        env.database.db,
        createLogger('silent'),
      );
      const app = await buildApp(ctx);
      try {
        return await app.inject({
          method: 'GET',
          url: '/v1/organizations',
          headers: { 'x-api-key': apiKey },
          query: { limit: '2', cursor: first.cursor! },
        });
      } finally {
        await app.close();
        await ctx.mail.close();
      }
    };
    const same = await instance({});
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(same.json(), expected);
    const other = await instance({ SECRET_KEY: 'another-secret-key-another-secret-key-000' });
    assertError(other, 400, 'INVALID_CURSOR');
  });
});
