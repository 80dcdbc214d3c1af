import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';
const HERO = {
  type: 'object',
  properties: { name: { type: 'string' }, level: { type: 'integer', minimum: 1 } },
  required: ['name'],
};

describe('item types', () => {
  let env: TestEnv;
  let orgId: string;
  let admin: Actor;
  let member: Actor;
  let otherOrgId: string;
  let otherAdmin: Actor;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId: orgId, admin, member, stranger: otherAdmin } = await env.createTenant());
    otherOrgId = otherAdmin.user.organization_id;
  });
  after(() => env.close());

  async function create(actor: Actor, body: Record<string, unknown>) {
    return env.call('POST', '/v1/item-types', { token: actor.token, body });
  }
  async function createOk(actor: Actor, name: string, jsonSchema: object = HERO) {
    const response = await create(actor, { name, json_schema: jsonSchema });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; organization_id: string; updated_at: string };
  }
  async function storedCount() {
    const row = await env.database.db
      .selectFrom('item_types')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe('patterns', () => {
    // The timeout turns a regression (minutes of backtracking) into a failure, not a hung run.
    it('match in linear time: a backtracking-prone pattern cannot stall the service on a crafted attribute', {
      timeout: 60_000,
    }, async () => {
      // With the built-in engine, this attribute takes 2^40 steps to refuse.
      const type = await createOk(admin, 'Evil pattern', {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^(a+)+$' } },
        patternProperties: { '^(x+x+)+y$': { type: 'string' } },
      });
      const collection = await insertCollection(env.database.db, { organizationId: orgId });
      const post = (attributes: object) =>
        env.call('POST', '/v1/items', {
          token: admin.token,
          body: { collection_id: collection.id, item_type_id: type.id, attributes },
        });
      const refused = await post({ code: `${'a'.repeat(40)}!` });
      assert.equal(
        assertError(refused, 422, 'SCHEMA_VALIDATION_FAILED').fields?.[0]?.path,
        '/attributes/code',
      );
      const accepted = await post({ code: 'aaaa', [`${'x'.repeat(40)}y`]: 'ok' });
      assert.equal(accepted.statusCode, 201, accepted.body);
    });

    it('refuses a schema whose pattern needs lookaround or backreferences (400)', async () => {
      for (const pattern of ['^(?=a)a$', '^(a)\\1$']) {
        const before = await storedCount();
        const response = await create(admin, {
          name: 'Lookaround',
          json_schema: { type: 'object', properties: { v: { type: 'string', pattern } } },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.equal(await storedCount(), before);
      }
    });
  });

  describe('create', () => {
    it("creates an item type in the caller's organization (201) and gets it back", async () => {
      const response = await create(admin, { name: 'Hero', json_schema: HERO });
      assert.equal(response.statusCode, 201, response.body);
      const type = response.json();
      assert.equal(type.name, 'Hero');
      assert.equal(type.organization_id, orgId);
      assert.deepEqual(type.json_schema, HERO);
      assert.match(type.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const got = await env.call('GET', `/v1/item-types/${type.id}`, { token: member.token });
      assert.equal(got.statusCode, 200, got.body);
      assert.deepEqual(got.json(), type);
    });

    it('accepts a draft-07 schema when its $schema says so, and draft 2020-12 keywords by default', async () => {
      await createOk(admin, 'Draft 7', {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { level: { type: 'integer' } },
        properties: { level: { $ref: '#/definitions/level' } },
      });
      await createOk(admin, 'Draft 2020', {
        type: 'object',
        $defs: { level: { type: 'integer' } },
        properties: {
          level: { $ref: '#/$defs/level' },
          tags: { type: 'array', prefixItems: [{ type: 'string' }] },
        },
      });
    });

    it('answers 400 with fields under /json_schema for a schema the meta schema refuses, and stores nothing', async () => {
      const before = await storedCount();
      const cases: [object, string][] = [
        [{ type: 'object', properties: { name: { type: 'text' } } }, '/json_schema/properties/name/type'],
        [{ type: 'string' }, '/json_schema/type'],
        [{ properties: { name: { type: 'string' } } }, '/json_schema/type'],
        [{ type: 'object', properties: { a: { minLength: -1 } } }, '/json_schema/properties/a/minLength'],
        [{ $schema: 'http://example.test/my-draft', type: 'object' }, '/json_schema/$schema'],
      ];
      for (const [jsonSchema, path] of cases) {
        const error = assertError(
          await create(admin, { name: 'Bad', json_schema: jsonSchema }),
          400,
          'VALIDATION_FAILED',
        );
        assert.ok(
          error.fields?.some((f) => f.path === path),
          `${JSON.stringify(jsonSchema)}: expected ${path} in ${JSON.stringify(error.fields)}`,
        );
      }
      assert.equal(await storedCount(), before);
    });

    it('answers 400 for a schema that does not compile (unresolvable $ref, unknown format, bad pattern)', async () => {
      for (const jsonSchema of [
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
        { type: 'object', properties: { a: { type: 'string', format: 'not-a-format' } } },
        { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
      ]) {
        const error = assertError(
          await create(admin, { name: 'Bad', json_schema: jsonSchema }),
          400,
          'VALIDATION_FAILED',
        );
        assert.ok(
          error.fields?.every((f) => f.path.startsWith('/json_schema')),
          JSON.stringify(error.fields),
        );
      }
    });

    it('requires json_schema (an object) and name, and refuses unknown fields', async () => {
      assertError(await create(admin, { name: 'No schema' }), 400, 'VALIDATION_FAILED');
      assertError(await create(admin, { json_schema: HERO }), 400, 'VALIDATION_FAILED');
      assertError(await create(admin, { name: 'Array', json_schema: [] }), 400, 'VALIDATION_FAILED');
      assertError(await create(admin, { name: 'X', json_schema: HERO, extra: 1 }), 400, 'VALIDATION_FAILED');
    });

    it('lets a platform admin create for another organization, and no one else (403)', async () => {
      const type = await createOk(env.platformAdmin, 'For org', HERO);
      assert.equal(type.organization_id, env.platformOrganizationId);
      const response = await create(env.platformAdmin, {
        name: 'Theirs',
        json_schema: HERO,
        organization_id: otherOrgId,
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().organization_id, otherOrgId);
      assertError(
        await create(admin, { name: 'Theirs', json_schema: HERO, organization_id: otherOrgId }),
        403,
        'FORBIDDEN',
      );
      assertError(
        await create(env.platformAdmin, { name: 'Nowhere', json_schema: HERO, organization_id: UNKNOWN_ID }),
        404,
        'NOT_FOUND',
      );
      // null and the caller's own organization are the default.
      const own = await create(admin, { name: 'Own', json_schema: HERO, organization_id: null });
      assert.equal(own.json().organization_id, orgId);
    });

    it('refuses an ORG_MEMBER (403)', async () => {
      assertError(await create(member, { name: 'Member', json_schema: HERO }), 403, 'FORBIDDEN');
    });
  });

  describe('list and get', () => {
    it('is for admins only: an ORG_MEMBER gets 403 on the list and the meta schema', async () => {
      assertError(await env.call('GET', '/v1/item-types', { token: member.token }), 403, 'FORBIDDEN');
      assertError(
        await env.call('GET', '/v1/item-types/meta-schema', { token: member.token }),
        403,
        'FORBIDDEN',
      );
    });

    it("lists the organization's own item types for an org admin; a platform admin sees all or filters", async () => {
      const mine = await createOk(admin, 'Listed mine');
      const theirs = await createOk(otherAdmin, 'Listed theirs');
      const ids = async (actor: Actor, query: Record<string, string> = {}) => {
        const response = await env.call('GET', '/v1/item-types', { token: actor.token, query });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        assert.equal(page.total_results, page.results.length);
        return (page.results as { id: string; organization_id: string }[]).map((r) => r.id);
      };
      const adminSees = await ids(admin);
      assert.ok(adminSees.includes(mine.id) && !adminSees.includes(theirs.id));
      assert.deepEqual(await ids(admin, { organization_id: otherOrgId }), []);
      assert.deepEqual(await ids(otherAdmin), await ids(env.platformAdmin, { organization_id: otherOrgId }));
      const all = await ids(env.platformAdmin);
      assert.ok(all.includes(mine.id) && all.includes(theirs.id));
      const filtered = await ids(env.platformAdmin, { organization_id: orgId });
      assert.ok(filtered.includes(mine.id) && !filtered.includes(theirs.id));
    });

    it('pages with cursors in creation order', async () => {
      const org = (await env.createOrganization()).id;
      const orgAdmin = await env.createUser(org, 'ORG_ADMIN');
      const created = [];
      for (let i = 0; i < 5; i++) created.push((await createOk(orgAdmin, `Paged ${i}`)).id);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const response = await env.call('GET', '/v1/item-types', {
          token: orgAdmin.token,
          query: { limit: '2', ...(cursor && { cursor }) },
        });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        assert.equal(page.total_results, 5);
        seen.push(...page.results.map((r: { id: string }) => r.id));
        cursor = page.cursor ?? undefined;
      } while (cursor);
      assert.deepEqual(seen, created);
      assertError(
        await env.call('GET', '/v1/item-types', { token: orgAdmin.token, query: { limit: '101' } }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it("answers 404 for another organization's item type and for an unknown id", async () => {
      const type = await createOk(admin, 'Hidden');
      assertError(
        await env.call('GET', `/v1/item-types/${type.id}`, { token: otherAdmin.token }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call('GET', `/v1/item-types/${UNKNOWN_ID}`, { token: admin.token }),
        404,
        'NOT_FOUND',
      );
    });

    it('serves the meta schema, which the example passes', async () => {
      const response = await env.call('GET', '/v1/item-types/meta-schema', { token: admin.token });
      assert.equal(response.statusCode, 200, response.body);
      const { example_json_schema, meta_json_schema } = response.json();
      assert.equal(meta_json_schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(example_json_schema.type, 'object');
      await createOk(admin, 'Example', example_json_schema);
    });
  });

  describe('edit', () => {
    async function edit(actor: Actor, id: string, body: object) {
      return env.call('PATCH', `/v1/item-types/${id}`, { token: actor.token, body });
    }
    async function addItem(itemTypeId: string, attributes: object) {
      const collection = await insertCollection(env.database.db, { organizationId: orgId });
      const response = await env.call('POST', '/v1/items', {
        token: admin.token,
        body: { collection_id: collection.id, item_type_id: itemTypeId, attributes },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().id as string;
    }

    it('changes name and json_schema freely while no item uses the type', async () => {
      const type = await createOk(admin, 'Unused');
      const next = { type: 'object', properties: { power: { type: 'number' } }, required: ['power'] };
      const response = await edit(admin, type.id, { name: 'Renamed', json_schema: next });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().name, 'Renamed');
      assert.deepEqual(response.json().json_schema, next);
      assert.ok(response.json().updated_at > type.updated_at);
    });

    it('accepts a new schema every item still passes, and new items then follow the new schema', async () => {
      const type = await createOk(admin, 'Used');
      await addItem(type.id, { name: 'a', level: 3 });
      const stricter = {
        ...HERO,
        properties: { ...HERO.properties, level: { type: 'integer', maximum: 5 } },
      };
      const response = await edit(admin, type.id, { name: 'Used', json_schema: stricter });
      assert.equal(response.statusCode, 200, response.body);
      const collection = await insertCollection(env.database.db, { organizationId: orgId });
      const refused = await env.call('POST', '/v1/items', {
        token: admin.token,
        body: { collection_id: collection.id, item_type_id: type.id, attributes: { name: 'b', level: 9 } },
      });
      const error = assertError(refused, 422, 'SCHEMA_VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/attributes/level'],
      );
    });

    it('refuses (409 INVALID_STATE) a schema an existing item fails, naming the first such item, and keeps the old one', async () => {
      const type = await createOk(admin, 'Guarded');
      await addItem(type.id, { name: 'ok', level: 1 });
      const failing = await addItem(type.id, { name: 'high', level: 50 });
      await addItem(type.id, { name: 'higher', level: 60 });
      const capped = { ...HERO, properties: { ...HERO.properties, level: { type: 'integer', maximum: 10 } } };
      const error = assertError(
        await edit(admin, type.id, { name: 'Renamed', json_schema: capped }),
        409,
        'INVALID_STATE',
      );
      assert.match(error.detail, new RegExp(failing));
      const stored = await env.call('GET', `/v1/item-types/${type.id}`, { token: admin.token });
      assert.equal(stored.json().name, 'Guarded');
      assert.deepEqual(stored.json().json_schema, HERO);
      // The same schema with only a new name is no schema change.
      const renamed = await edit(admin, type.id, { name: 'Renamed', json_schema: HERO });
      assert.equal(renamed.statusCode, 200, renamed.body);
    });

    it('checks the new schema against the meta schema (400), requires both fields, 404 elsewhere, 403 for members', async () => {
      const type = await createOk(admin, 'Edited');
      assertError(
        await edit(admin, type.id, { name: 'x', json_schema: { type: 'array' } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(await edit(admin, type.id, { name: 'x' }), 400, 'VALIDATION_FAILED');
      assertError(await edit(admin, type.id, { json_schema: HERO }), 400, 'VALIDATION_FAILED');
      assertError(await edit(otherAdmin, type.id, { name: 'x', json_schema: HERO }), 404, 'NOT_FOUND');
      assertError(await edit(admin, UNKNOWN_ID, { name: 'x', json_schema: HERO }), 404, 'NOT_FOUND');
      assertError(await edit(member, type.id, { name: 'x', json_schema: HERO }), 403, 'FORBIDDEN');
    });
  });
});
