import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';

describe('marketing campaigns', () => {
  let env: TestEnv;
  let tenant: Tenant;
  let orgName: string;
  before(async () => {
    env = await setupTest({ PLATFORM_NAME: 'Drops' });
    tenant = await env.createTenant();
    orgName = (
      await env.database.db
        .selectFrom('organizations')
        .select('name')
        .where('id', '=', tenant.organizationId)
        .executeTakeFirstOrThrow()
    ).name;
  });
  after(() => env.close());

  const create = (body: unknown, token = tenant.admin.token) =>
    env.call('POST', '/v1/marketing-campaigns', { token, body });

  describe('create: POST /v1/marketing-campaigns', () => {
    it('answers 201 {id, name, email_from, created_at}, email_from defaulting to "<organization> via <PLATFORM_NAME>"', async () => {
      const response = await create({ name: 'Spring drop' });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['created_at', 'email_from', 'id', 'name']);
      assert.equal(body.name, 'Spring drop');
      assert.equal(body.email_from, `${orgName} via Drops`);
      assert.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('takes email_from as a display name or "Name <address>"', async () => {
      const named = await create({ name: 'Named sender', email_from: 'Acme Drops <drops@acme.test>' });
      assert.equal(named.statusCode, 201, named.body);
      assert.equal(named.json().email_from, 'Acme Drops <drops@acme.test>');
      const label = await create({ name: 'Label sender', email_from: 'Acme Drops' });
      assert.equal(label.json().email_from, 'Acme Drops');
      const bare = await create({ name: 'Bare sender', email_from: 'drops@acme.test' });
      assert.equal(bare.json().email_from, 'drops@acme.test');
    });

    it('refuses an email_from with a line break, an overlong one, or a broken address (400 naming the field)', async () => {
      assertFields(await create({ name: 'x1', email_from: 'Acme\r\nBcc: victim@example.test' }), [
        '/email_from',
      ]);
      assertFields(await create({ name: 'x2', email_from: 'Acme\nDrops' }), ['/email_from']);
      assertFields(await create({ name: 'x3', email_from: 'x'.repeat(321) }), ['/email_from']);
      assertFields(await create({ name: 'x4', email_from: 'Acme <not an address>' }), ['/email_from']);
      assertFields(await create({ name: 'x5', email_from: 'Acme <a@b.test> <c@d.test>' }), ['/email_from']);
      assertFields(await create({ name: 'x6', email_from: 'bad@address' }), ['/email_from']);
      assertFields(await create({ name: '' }), ['/name']);
      assertFields(await create({ name: 'x7', unknown: 1 }), ['/unknown']);
    });

    it('answers 409 ALREADY_EXISTS for a name the organization already uses, also when created concurrently', async () => {
      assert.equal((await create({ name: 'Unique' })).statusCode, 201);
      assertError(await create({ name: 'Unique' }), 409, 'ALREADY_EXISTS');
      const results = await Promise.all([1, 2, 3, 4].map(() => create({ name: 'Raced' })));
      assert.deepEqual(
        results.map((r) => r.statusCode).sort(),
        [201, 409, 409, 409],
        results.map((r) => r.body).join(),
      );
      for (const r of results.filter((r) => r.statusCode === 409)) assertError(r, 409, 'ALREADY_EXISTS');
    });

    it('lets another organization use the same name', async () => {
      assert.equal((await create({ name: 'Shared name' })).statusCode, 201);
      assert.equal((await create({ name: 'Shared name' }, tenant.stranger.token)).statusCode, 201);
    });

    it("refuses an ORG_MEMBER (403) and another organization's id from an organization admin (403)", async () => {
      assertError(await create({ name: 'Member' }, tenant.member.token), 403, 'FORBIDDEN');
      assertError(
        await create({ name: 'Elsewhere', organization_id: env.platformOrganizationId }),
        403,
        'FORBIDDEN',
      );
    });

    it('lets a platform admin create a campaign for another organization', async () => {
      const response = await create(
        { name: 'By the platform', organization_id: tenant.organizationId },
        env.platformAdmin.token,
      );
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().email_from, `${orgName} via Drops`);
      const listed = await env.call('GET', '/v1/marketing-campaigns', {
        token: tenant.admin.token,
        query: { name: 'By the platform' },
      });
      assert.equal(listed.json().total_results, 1);
    });
  });

  describe('read, edit, delete', () => {
    let campaignId: string;
    before(async () => {
      campaignId = (await create({ name: 'Editable' })).json().id;
    });

    it('gets a campaign of the organization, for a member too; another organization gets 404', async () => {
      const got = await env.call('GET', `/v1/marketing-campaigns/${campaignId}`, {
        token: tenant.member.token,
      });
      assert.equal(got.statusCode, 200, got.body);
      assert.equal(got.json().name, 'Editable');
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        assertError(
          await env.call(method, `/v1/marketing-campaigns/${campaignId}`, {
            token: tenant.stranger.token,
            ...(method === 'PATCH' && { body: { name: 'stolen' } }),
          }),
          404,
          'NOT_FOUND',
        );
      }
      assertError(
        await env.call('GET', `/v1/marketing-campaigns/${UNKNOWN_ID}`, { token: tenant.admin.token }),
        404,
        'NOT_FOUND',
      );
      const platform = await env.call('GET', `/v1/marketing-campaigns/${campaignId}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(platform.statusCode, 200, 'a platform admin sees every organization');
    });

    it('edits name and email_from; null restores the default; a taken name is 409', async () => {
      const path = `/v1/marketing-campaigns/${campaignId}`;
      const edited = await env.call('PATCH', path, {
        token: tenant.admin.token,
        body: { name: 'Edited', email_from: 'Edited <edited@acme.test>' },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.deepEqual(
        [edited.json().name, edited.json().email_from],
        ['Edited', 'Edited <edited@acme.test>'],
      );
      const restored = await env.call('PATCH', path, {
        token: tenant.admin.token,
        body: { email_from: null },
      });
      assert.deepEqual(
        [restored.json().name, restored.json().email_from],
        ['Edited', `${orgName} via Drops`],
      );
      assert.equal((await create({ name: 'Taken' })).statusCode, 201);
      assertError(
        await env.call('PATCH', path, { token: tenant.admin.token, body: { name: 'Taken' } }),
        409,
        'ALREADY_EXISTS',
      );
      const error = assertError(
        await env.call('PATCH', path, { token: tenant.admin.token, body: { email_from: 'a\rb' } }),
        400,
        'VALIDATION_FAILED',
      );
      assert.ok(
        error.fields?.every((f) => f.path === '/email_from'),
        JSON.stringify(error),
      );
      assertError(
        await env.call('PATCH', path, { token: tenant.member.token, body: { name: 'x' } }),
        403,
        'FORBIDDEN',
      );
    });

    it('deletes with 204, then the campaign is 404', async () => {
      const id = (await create({ name: 'Doomed' })).json().id;
      const deleted = await env.call('DELETE', `/v1/marketing-campaigns/${id}`, {
        token: tenant.admin.token,
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
      assert.equal(deleted.body, '');
      assertError(
        await env.call('GET', `/v1/marketing-campaigns/${id}`, { token: tenant.admin.token }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call('DELETE', `/v1/marketing-campaigns/${id}`, { token: tenant.admin.token }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('list: GET /v1/marketing-campaigns', () => {
    let own: Tenant;
    before(async () => {
      own = await env.createTenant();
      for (const name of ['c1', 'c2', 'c3']) {
        const response = await env.call('POST', '/v1/marketing-campaigns', {
          token: own.admin.token,
          body: { name },
        });
        assert.equal(response.statusCode, 201, response.body);
      }
      await env.call('POST', '/v1/marketing-campaigns', { token: own.stranger.token, body: { name: 'c1' } });
    });

    const list = (query: Record<string, string>, token = own.admin.token) =>
      env.call('GET', '/v1/marketing-campaigns', { token, query });

    it("lists the organization's campaigns only, oldest first, in pages", async () => {
      const first = await list({ limit: '2' });
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(
        first.json().results.map((c: { name: string }) => c.name),
        ['c1', 'c2'],
      );
      assert.equal(first.json().has_more, true);
      assert.equal(first.json().total_results, 3);
      const second = await list({ limit: '2', cursor: first.json().cursor });
      assert.deepEqual(
        second.json().results.map((c: { name: string }) => c.name),
        ['c3'],
      );
      assert.equal(second.json().cursor, null);
    });

    it('orders by order_direction and filters by exact name', async () => {
      const desc = await list({ order_direction: 'DESC' });
      assert.deepEqual(
        desc.json().results.map((c: { name: string }) => c.name),
        ['c3', 'c2', 'c1'],
      );
      const named = await list({ name: 'c2' });
      assert.deepEqual(
        named.json().results.map((c: { name: string }) => c.name),
        ['c2'],
      );
      assert.equal((await list({ name: 'C2' })).json().total_results, 0, 'exact, case included');
      assert.equal((await list({ name: 'c' })).json().total_results, 0, 'exact, not a prefix');
      const first = await list({ limit: '1' });
      assertError(await list({ limit: '1', name: 'c1', cursor: first.json().cursor }), 400, 'INVALID_CURSOR');
      const error = assertError(await list({ order_direction: 'UP' }), 400, 'VALIDATION_FAILED');
      assert.ok(
        error.fields?.every((f) => f.path === 'querystring:/order_direction'),
        JSON.stringify(error),
      );
    });

    it("lets a platform admin list another organization's campaigns; an organization admin gets an empty page", async () => {
      const platform = await list({ organization_id: own.organizationId }, env.platformAdmin.token);
      assert.equal(platform.json().total_results, 3);
      const stranger = await list({ organization_id: own.organizationId }, own.stranger.token);
      assert.equal(stranger.json().total_results, 0);
    });
  });
});
