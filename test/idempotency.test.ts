import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from './assertions.ts';
import { type Actor, setupTest, type TestEnv } from './harness.ts';

/** docs/api.md#idempotency: one effect per key, the first response replayed to every retry. */
describe('Idempotency-Key', () => {
  let env: TestEnv;
  let admin: Actor;
  let colleague: Actor;
  let otherOrgAdmin: Actor;
  before(async () => {
    env = await setupTest();
    const organization = await env.createOrganization();
    admin = await env.createUser(organization.id, 'ORG_ADMIN');
    colleague = await env.createUser(organization.id, 'ORG_ADMIN');
    const other = await env.createOrganization();
    otherOrgAdmin = await env.createUser(other.id, 'ORG_ADMIN');
  });
  after(() => env.close());

  const apiKeysNamed = async (userId: string, name: string) =>
    env.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .execute();

  const createKey = (actor: Actor, key: string, body: unknown) =>
    env.call('POST', '/v1/api-keys', { token: actor.token, body, headers: { 'idempotency-key': key } });

  it('acts once for 20 concurrent requests with one key, and answers all of them alike', async () => {
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => createKey(admin, key, { name: 'burst' })),
    );
    assert.equal((await apiKeysNamed(admin.user.id, 'burst')).length, 1);
    const first = responses[0]!;
    assert.equal(first.statusCode, 201, first.body);
    for (const response of responses) {
      assert.equal(response.statusCode, first.statusCode);
      assert.equal(response.body, first.body);
    }
    const originals = responses.filter((r) => r.headers['idempotent-replayed'] !== 'true');
    assert.equal(originals.length, 1, 'exactly one response is the original, the others are replays');
  });

  it('replays the first response to a later retry, marked idempotent-replayed', async () => {
    const key = randomUUID();
    const first = await createKey(admin, key, { name: 'retry' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const retry = await createKey(admin, key, { name: 'retry' });
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.match(String(retry.headers['content-type']), /^application\/json/);
    assert.deepEqual(retry.json(), first.json());
    assert.equal((await apiKeysNamed(admin.user.id, 'retry')).length, 1);
  });

  it('replays to the same user whatever credential it uses (access token or API key)', async () => {
    const key = randomUUID();
    const first = await createKey(admin, key, { name: 'by-token' });
    assert.equal(first.statusCode, 201, first.body);
    const retry = await env.call('POST', '/v1/api-keys', {
      apiKey: first.json().key,
      body: { name: 'by-token' },
      headers: { 'idempotency-key': key },
    });
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body, first.body);
  });

  it('refuses the same key with another body with 409 IDEMPOTENCY_KEY_REUSED, acting not', async () => {
    const key = randomUUID();
    assert.equal((await createKey(admin, key, { name: 'original' })).statusCode, 201);
    const reused = await createKey(admin, key, { name: 'different' });
    assertError(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal((await apiKeysNamed(admin.user.id, 'different')).length, 0);
  });

  it('refuses the same key on another operation with 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = randomUUID();
    assert.equal((await createKey(admin, key, { name: 'first-operation' })).statusCode, 201);
    const elsewhere = await env.call('POST', '/v1/me/mfa', {
      token: admin.token,
      headers: { 'idempotency-key': key },
    });
    assertError(elsewhere, 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it("never replays a colleague's response (it would hand over the colleague's secret API key)", async () => {
    const key = randomUUID();
    const mine = await createKey(admin, key, { name: 'shared-key' });
    assert.equal(mine.statusCode, 201);
    const theirs = await createKey(colleague, key, { name: 'shared-key' });
    assertError(theirs, 409, 'IDEMPOTENCY_KEY_REUSED');
    assert.ok(!theirs.body.includes(mine.json().key));
    assert.equal((await apiKeysNamed(colleague.user.id, 'shared-key')).length, 0);
  });

  it('keeps the keys of each organization apart', async () => {
    const key = randomUUID();
    const a = await createKey(admin, key, { name: 'per-org' });
    const b = await createKey(otherOrgAdmin, key, { name: 'per-org' });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201, b.body);
    assert.equal(b.headers['idempotent-replayed'], undefined);
    assert.notEqual(a.json().id, b.json().id);
    assert.equal((await apiKeysNamed(admin.user.id, 'per-org')).length, 1);
    assert.equal((await apiKeysNamed(otherOrgAdmin.user.id, 'per-org')).length, 1);
  });

  it('refuses a key longer than 255 characters or empty with 400, and takes one of 255', async () => {
    for (const key of ['k'.repeat(256), '']) {
      const response = await createKey(admin, key, { name: 'bad-key' });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['headers:/idempotency-key'],
      );
    }
    assert.equal((await apiKeysNamed(admin.user.id, 'bad-key')).length, 0);
    assert.equal((await createKey(admin, 'k'.repeat(255), { name: 'long-key' })).statusCode, 201);
  });

  it('replays a request that failed with a 4xx as that 4xx, even once it would succeed', async () => {
    const platform = env.platformAdmin.token;
    const taken = await env.createOrganization();
    const key = randomUUID();
    const send = () =>
      env.call('POST', '/v1/organizations', {
        token: platform,
        body: { name: taken.name },
        headers: { 'idempotency-key': key },
      });
    const first = await send();
    assertError(first, 409, 'ALREADY_EXISTS');
    // Free the name: a request that acted again would now succeed.
    await env.database.db
      .updateTable('organizations')
      .set({ name: `${taken.name} renamed` })
      .where('id', '=', taken.id)
      .execute();
    const retry = await send();
    assert.equal(retry.statusCode, 409);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    // The body is the first response, byte for byte (its request_id names the request that acted).
    assert.equal(retry.body, first.body);
    const created = await env.database.db
      .selectFrom('organizations')
      .select('id')
      .where('name', '=', taken.name)
      .execute();
    assert.equal(created.length, 0);
  });

  it('acts on every request that carries no key', async () => {
    assert.equal((await createKey(admin, randomUUID(), { name: 'keyless' })).statusCode, 201);
    const keyless = await env.call('POST', '/v1/api-keys', { token: admin.token, body: { name: 'keyless' } });
    assert.equal(keyless.statusCode, 201);
    assert.equal((await apiKeysNamed(admin.user.id, 'keyless')).length, 2);
  });

  it('stores replayable responses encrypted: a new API key never rests in plain text', async () => {
    const key = randomUUID();
    const created = await createKey(admin, key, { name: 'secret-at-rest' });
    assert.equal(created.statusCode, 201);
    const secret = created.json().key as string;
    const rows = await env.database.db.selectFrom('idempotency_keys').select('response_body').execute();
    assert.ok(rows.length > 0);
    for (const row of rows)
      assert.ok(!row.response_body?.includes(secret), 'the key is stored in plain text');
    const replay = await createKey(admin, key, { name: 'secret-at-rest' });
    assert.equal(replay.json().key, secret);
  });

  it('keeps anonymous callers apart: a log in replayed to another client address is a new request', async () => {
    const key = randomUUID();
    const body = { email: 'nobody@example.test', password: 'whatever-it-is' };
    const first = await env.call('POST', '/v1/auth/login', {
      body,
      headers: { 'idempotency-key': key },
      ip: '10.1.1.1',
    });
    assert.equal(first.statusCode, 401);
    const replay = await env.call('POST', '/v1/auth/login', {
      body,
      headers: { 'idempotency-key': key },
      ip: '10.1.1.1',
    });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const elsewhere = await env.call('POST', '/v1/auth/login', {
      body,
      headers: { 'idempotency-key': key },
      ip: '10.2.2.2',
    });
    assert.equal(elsewhere.statusCode, 401);
    assert.equal(elsewhere.headers['idempotent-replayed'], undefined);
  });
});
