import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  createPlatformAccount,
  enableFor,
  PLATFORM_KEYS,
} from '../../../../../test/support/card-provider.ts';
import { type StripeStandin, startStripeStandin } from '../../../../../test/support/stripe-standin.ts';

/**
 * A connected account is created once, whatever fails around its creation: its creation is
 * claimed and committed, the provider is called with the claim's idempotency key, the account is
 * recorded, and only then is the onboarding link asked for.
 */
describe('card provider set-up: a retry never makes a second connected account', () => {
  let env: TestEnv;
  let standin: StripeStandin;
  let platformId: string;
  before(async () => {
    standin = await startStripeStandin({
      secretKeys: [PLATFORM_KEYS.secretKey],
      publishableKeys: [PLATFORM_KEYS.publishableKey],
    });
    env = await setupTest({ STRIPE_API_BASE: standin.url });
    platformId = await createPlatformAccount(env);
  });
  after(async () => {
    standin.failing = undefined;
    standin.losing = undefined;
    await env?.close();
    await standin?.close();
  });

  const organization = async () => {
    const { organizationId, admin } = await env.createTenant();
    await enableFor(env, organizationId, platformId);
    return { organizationId, token: admin.token };
  };
  const setup = (token: string) =>
    env.call('POST', '/v1/card-provider/setup', {
      token,
      body: { connect_type: 'STANDARD', platform_card_provider_account_id: platformId },
    });
  /** The accounts the provider holds for the organization (its metadata names it). */
  const accountsAtProvider = (organizationId: string) =>
    [...standin.accounts.values()].filter(
      (account) =>
        (account as { metadata?: Record<string, string> }).metadata?.organization_id === organizationId,
    );
  const accountsRecorded = (organizationId: string) =>
    env.database.db
      .selectFrom('card_provider_connected_accounts')
      .select('account_id')
      .where('organization_id', '=', organizationId)
      .execute();

  it('keeps the account made before the onboarding link failed, and a retry links that one', async () => {
    const { organizationId, token } = await organization();
    standin.failing = (request) => request.path === '/v1/account_links';
    assertError(await setup(token), 502, 'UPSTREAM_FAILED');
    standin.failing = undefined;
    assert.equal(accountsAtProvider(organizationId).length, 1);
    assert.deepEqual(
      (await accountsRecorded(organizationId)).map((a) => a.account_id),
      accountsAtProvider(organizationId).map((a) => a.id),
    );
    const retried = await setup(token);
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(accountsAtProvider(organizationId).length, 1);
    assert.equal((await accountsRecorded(organizationId)).length, 1);
  });

  it('gets back the account the provider made when its answer was lost, instead of making another', async () => {
    const { organizationId, token } = await organization();
    standin.losing = (request) => request.method === 'POST' && request.path === '/v1/accounts';
    assertError(await setup(token), 502, 'UPSTREAM_FAILED');
    standin.losing = undefined;
    // The provider made it; the service could not know which: nothing recorded, the claim kept.
    assert.equal(accountsAtProvider(organizationId).length, 1);
    assert.deepEqual(await accountsRecorded(organizationId), []);
    const retried = await setup(token);
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(accountsAtProvider(organizationId).length, 1);
    assert.deepEqual(
      (await accountsRecorded(organizationId)).map((a) => a.account_id),
      accountsAtProvider(organizationId).map((a) => a.id),
    );
    const creations = standin.requests.filter(
      (request) =>
        request.method === 'POST' &&
        request.path === '/v1/accounts' &&
        request.params.metadata !== undefined &&
        JSON.stringify(request.params).includes(organizationId),
    );
    assert.ok(creations.length >= 2, 'the creation was asked for again');
    assert.equal(new Set(creations.map((request) => request.idempotencyKey)).size, 1, 'with one key');
    const claims = await env.database.db
      .selectFrom('card_provider_account_claims')
      .select('organization_id')
      .where('organization_id', '=', organizationId)
      .execute();
    assert.deepEqual(claims, [], 'the claim is gone once its account is recorded');
  });

  it('makes a new account after a DISCONNECT: a claim is for one creation', async () => {
    const { organizationId, token } = await organization();
    assert.equal((await setup(token)).statusCode, 201);
    const disconnected = await env.call('POST', '/v1/card-provider/commands', {
      token,
      body: { command: 'DISCONNECT' },
    });
    assert.equal(disconnected.statusCode, 201, disconnected.body);
    assert.equal((await setup(token)).statusCode, 201);
    assert.equal(accountsAtProvider(organizationId).length, 2);
    assert.equal((await accountsRecorded(organizationId)).length, 2);
  });
});
