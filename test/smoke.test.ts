import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTest, type TestEnv } from './harness.ts';

describe('service skeleton', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  it('answers /healthz and /readyz', async () => {
    assert.equal((await env.call('GET', '/healthz')).statusCode, 200);
    const ready = await env.call('GET', '/readyz');
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
  });

  it('lets the bootstrap admin log in, create an API key and call /v1/me with it', async () => {
    const created = await env.call('POST', '/v1/api-keys', {
      token: env.platformAdmin.token,
      body: { name: 'script' },
    });
    assert.equal(created.statusCode, 201);
    const key = created.json().key as string;
    assert.match(key, /^tis_/);
    const me = await env.call('GET', '/v1/me', { apiKey: key });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().user.email, env.platformAdmin.user.email);
    assert.ok(me.json().permissions.includes('platform:admin'));
  });
});
