import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestEnv } from '../harness.ts';
import type { StripeStandin } from './stripe-standin.ts';

/** Keys and webhook secrets of the platform account the card tests configure. */
export const PLATFORM_KEYS = {
  secretKey: 'sk_test_51StandinPlatformSecretKey0123456789',
  publishableKey: 'pk_test_51StandinPlatformPublishableKey0123456789',
  accountWebhookSecret: 'whsec_standinAccountEndpointSecret0123456789',
  connectWebhookSecret: 'whsec_standinConnectEndpointSecret0123456789',
} as const;

export function platformAccountBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `Stripe test ${randomBytes(3).toString('hex')}`,
    mode: 'TEST',
    publishable_key: PLATFORM_KEYS.publishableKey,
    secret_key: PLATFORM_KEYS.secretKey,
    card_provider_account_id: 'acct_1StandinPlatform',
    session_timeout_minutes: 15,
    account_webhook_endpoint_secret: PLATFORM_KEYS.accountWebhookSecret,
    connect_webhook_endpoint_secret: PLATFORM_KEYS.connectWebhookSecret,
    ...overrides,
  };
}

/** A platform account created by the platform admin: its id. */
export async function createPlatformAccount(
  env: TestEnv,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const response = await env.call('POST', '/v1/card-provider/platform-accounts', {
    token: env.platformAdmin.token,
    body: platformAccountBody(overrides),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id as string;
}

export async function enableFor(
  env: TestEnv,
  organizationId: string,
  platformAccountId: string,
  enabled = true,
) {
  const response = await env.call(
    'PATCH',
    `/v1/organizations/${organizationId}/card-provider-accounts/${platformAccountId}`,
    { token: env.platformAdmin.token, body: { enabled } },
  );
  assert.equal(response.statusCode, 200, response.body);
}

/**
 * The organization's card set-up, done as it is for real: enabled by the platform, set up
 * (connected account at the stand-in), onboarding finished at the provider, then REFRESH.
 * Answers the connected account's id.
 */
export async function setUpCardProvider(
  env: TestEnv,
  standin: StripeStandin,
  organizationId: string,
  adminToken: string,
  platformAccountId: string,
): Promise<string> {
  await enableFor(env, organizationId, platformAccountId);
  const setup = await env.call('POST', '/v1/card-provider/setup', {
    token: adminToken,
    body: {
      connect_type: 'STANDARD',
      platform_card_provider_account_id: platformAccountId,
      return_url: 'https://org.example/back',
    },
  });
  assert.equal(setup.statusCode, 201, setup.body);
  const status = await env.call('GET', '/v1/card-provider', { token: adminToken });
  const accountId = status.json().account_id as string;
  const account = standin.accounts.get(accountId);
  assert.ok(account, 'the connected account exists at the stand-in');
  account.charges_enabled = true;
  account.details_submitted = true;
  const refreshed = await env.call('POST', '/v1/card-provider/commands', {
    token: adminToken,
    body: { command: 'REFRESH' },
  });
  assert.equal(refreshed.statusCode, 201, refreshed.body);
  assert.equal(refreshed.json().setup_complete, true);
  return accountId;
}
