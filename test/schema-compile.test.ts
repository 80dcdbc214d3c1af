import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileAllPending, validatorOnFirstUse } from '../src/http/schema-compilers.ts';
import { setupTest, type TestEnv } from './harness.ts';

/**
 * Validators and serializers compile on a route's first use, so a schema that does not compile
 * would show only at its route's first request: here every one of them is compiled at once.
 */
describe("every route's schemas", () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
    await env.app.ready();
  });
  after(() => env.close());

  it('compile: every validator and response serializer of the app, then none is left waiting', async () => {
    const operations = Object.values(
      (await env.call('GET', '/openapi.json')).json().paths as Record<string, object>,
    ).reduce((n, methods) => n + Object.keys(methods).length, 0);
    const compiled = compileAllPending();
    // At least a serializer per answer of each operation (a 2xx and its error statuses).
    assert.ok(compiled >= 2 * operations, `${compiled} compilations for ${operations} operations`);
    assert.equal(compileAllPending(), 0);
    const me = await env.call('GET', '/v1/me', { token: (await env.createTenant()).admin.token });
    assert.equal(me.statusCode, 200, 'a route compiled ahead of its first use still answers');
  });

  it('a schema that does not compile fails the check, not a later request', () => {
    validatorOnFirstUse(() => {
      throw new Error('schema is invalid: type must be string');
    });
    assert.throws(() => compileAllPending(), /schema is invalid/);
  });
});
