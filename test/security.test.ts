import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Abi } from 'viem';
import { type Permission, ROLE_PERMISSIONS } from '../src/access/permissions.ts';
import { getPlatformContract } from '../src/chain/artifacts.ts';
import { capabilitiesOf } from '../src/chain/capabilities.ts';
import type { RegisteredRoute } from '../src/http/route-table.ts';
import { registeredRoutes } from '../src/http/route-table.ts';
import { WEBHOOKS_PREFIX } from '../src/http/webhooks-scope.ts';
import type { ErrorCode } from '../src/lib/errors.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { sha256 } from '../src/lib/secrets.ts';
import { assertError } from './assertions.ts';
import { insertCollection, insertTransaction } from './factories.ts';
import { type Actor, setupTest, type TestEnv } from './harness.ts';

/**
 * The shared security suite (after unkey's): every /v1 route the app registers is found
 * from the route table, so a new route is checked here without anyone adding it:
 * - without credentials, or with unknown ones, it answers 401 UNAUTHENTICATED unless it is public;
 * - an ORG_MEMBER lacking the route's permission gets 403 FORBIDDEN, by token and by API key;
 * - a user of an organization that requires MFA, without MFA, gets 403 MFA_REQUIRED outside /v1/me*;
 * - another organization's admin, pointed at organization A's resources, gets 404 NOT_FOUND;
 * - organization A's own admin is let through with the same requests (so the 404s are earned).
 * Authentication runs in onRequest, before the body is parsed or validated, so an empty or
 * invalid body never turns a 401/403 into a 400; the suite sends `{}` to prove it.
 */

/**
 * The public operations (the API's "public" access: no credentials), and the provider webhooks
 * (`/v1/webhooks/…`, no credentials: their handlers check the provider's signature); making a route
 * public is a decision, reviewed here.
 */
const PUBLIC_ROUTES = [
  'DELETE /v1/public/purchase-intents/:purchase_intent_id',
  'GET /v1/metadata/:collection_id',
  'GET /v1/metadata/:collection_id/:token_id',
  'GET /v1/public/capabilities',
  'GET /v1/public/collections/:collection_id/capabilities',
  'GET /v1/public/email-claims/:claim_token',
  'GET /v1/public/listings/:listing_id',
  'GET /v1/public/listings/:listing_id/eligibility',
  'GET /v1/public/mint-vouchers/:eth_address',
  'GET /v1/public/purchase-intents/:purchase_intent_id',
  'POST /v1/auth/forgot-password',
  'POST /v1/auth/login',
  'POST /v1/auth/login/mfa',
  'POST /v1/auth/reset-password',
  'POST /v1/auth/verify',
  'POST /v1/public/email-claims/:claim_token/redeem',
  'POST /v1/public/email-claims/:claim_token/verify',
  'POST /v1/public/purchase-intents',
  'POST /v1/webhooks/card-provider/:platform_card_provider_account_id',
  'POST /v1/webhooks/crypto-provider/:organization_id',
];

interface Tenant {
  organizationId: string;
  admin: Actor;
  member: Actor;
  adminApiKey: { id: string; key: string };
  memberApiKey: { id: string; key: string };
  transactionId: string;
  collectionId: string;
  itemTypeId: string;
  itemId: string;
  emailIntegrationId: string;
  mintRequestId: string;
  transferRequestId: string;
  emailClaimId: string;
  /** The secret of the email claim's link. */
  claimToken: string;
  campaignId: string;
  webhookId: string;
  webhookDeliveryId: string;
  listingId: string;
  purchaseIntentId: string;
  /** The purchase intent's client_token. */
  clientToken: string;
  /** A platform card-provider account (a platform resource, one per tenant for simplicity). */
  platformCardProviderAccountId: string;
}

/**
 * How to fill each path parameter with one of the tenant's own resources. A route whose
 * parameter is missing here fails the suite: add the fixture (and create the resource in
 * createTenant) when you add the route.
 */
const PATH_FIXTURES: Record<string, (t: Tenant) => string> = {
  organization_id: (t) => t.organizationId,
  user_id: (t) => t.member.user.id,
  api_key_id: (t) => t.adminApiKey.id,
  network_id: () => String(FIXTURE_NETWORK_ID),
  transaction_id: (t) => t.transactionId,
  collection_id: (t) => t.collectionId,
  item_type_id: (t) => t.itemTypeId,
  item_id: (t) => t.itemId,
  mint_request_id: (t) => t.mintRequestId,
  transfer_request_id: (t) => t.transferRequestId,
  function_id: () => FIXTURE_FUNCTION_ID,
  integration_id: (t) => t.emailIntegrationId,
  token_id: () => '1',
  claim_id: (t) => t.emailClaimId,
  claim_token: (t) => t.claimToken,
  campaign_id: (t) => t.campaignId,
  listing_id: (t) => t.listingId,
  purchase_intent_id: (t) => t.purchaseIntentId,
  template_type: () => 'REDEEM_NFT',
  webhook_id: (t) => t.webhookId,
  platform_card_provider_account_id: (t) => t.platformCardProviderAccountId,
  delivery_id: (t) => t.webhookDeliveryId,
  // A minter's pending vouchers are public by design (the minter's own address is the key).
  eth_address: () => '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
};

/** `setBaseURI(string)` of the fixture collection: enabled, so the owner may execute it. */
const FIXTURE_FUNCTION_ID = '55f804b3';

/**
 * A deployed ERC-721 collection of the organization (inserted directly: the fixture network has
 * no node), with functions enabled.
 */
async function createFixtureCollection(organizationId: string): Promise<string> {
  const abi = [...getPlatformContract('FlexibleERC721').abi];
  const collection = await insertCollection(env.database.db, {
    organizationId,
    name: 'fixture',
    networkId: FIXTURE_NETWORK_ID,
    contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    abi,
    capabilities: capabilitiesOf(abi as Abi),
  });
  await env.database.db
    .updateTable('collections')
    .set({ functions_enabled: true })
    .where('id', '=', collection.id)
    .execute();
  await env.database.db
    .insertInto('collection_functions')
    .values({ collection_id: collection.id, selector: FIXTURE_FUNCTION_ID, enabled: true })
    .execute();
  return collection.id;
}

/**
 * An item type, an item (the one `item_id` names, which the owner suite finally deletes) and a
 * second item with a mint and a transfer request, inserted directly (an organization requiring
 * MFA cannot use the API).
 */
async function createFixtureCatalog(organizationId: string, collectionId: string, transactionId: string) {
  const db = env.database.db;
  const itemType = await db
    .insertInto('item_types')
    .values({
      id: uuidv7(),
      organization_id: organizationId,
      name: 'fixture',
      json_schema: '{"type":"object"}',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const [item, requested, claimed] = await db
    .insertInto('items')
    .values(
      [0, 1, 2].map(() => ({
        id: uuidv7(),
        organization_id: organizationId,
        collection_id: collectionId,
        attributes: '{}',
      })),
    )
    .returning('id')
    .execute();
  const request = () => ({
    id: uuidv7(),
    organization_id: organizationId,
    collection_id: collectionId,
    item_id: requested!.id,
    quantity: '1',
    to_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    transaction_id: transactionId,
  });
  const mint = await db
    .insertInto('mint_requests')
    .values(request())
    .returning('id')
    .executeTakeFirstOrThrow();
  const transfer = await db
    .insertInto('transfer_requests')
    .values(request())
    .returning('id')
    .executeTakeFirstOrThrow();
  const claimToken = `fixture-${uuidv7()}`;
  const claim = await db
    .insertInto('email_claims')
    .values({
      id: uuidv7(),
      organization_id: organizationId,
      collection_id: collectionId,
      item_id: claimed!.id,
      email: 'fixture@example.test',
      quantity: '1',
      token_hash: sha256(claimToken),
      expiration: new Date(Date.now() + 24 * 3600 * 1000),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const listing = await db
    .insertInto('listings')
    .values({
      id: uuidv7(),
      organization_id: organizationId,
      collection_id: collectionId,
      item_id: null,
      status: 'ACTIVE',
      price: '0',
      currency: 'USD',
      payment_providers: ['EMAIL_CLAIM'],
      max_quantity_per_tx: 1,
      quantity_listed: 1,
      quantity_held: 1,
      policy: JSON.stringify({
        type: 'FCFS',
        max_per_user: null,
        payment_session_duration: { timeout_seconds: 900, provider_override: {} },
        email_claim_duration: 604800,
        item_assignment_strategy: 'AUTOMATIC',
        tx_payer: 'SELLER',
        email_addresses: null,
        eth_addresses: null,
      }),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const clientToken = `fixture-${uuidv7()}`;
  const intent = await db
    .insertInto('purchase_intents')
    .values({
      id: uuidv7(),
      organization_id: organizationId,
      listing_id: listing.id,
      quantity: 1,
      status: 'PENDING',
      fulfillment_method: 'EMAIL',
      payment_provider: 'CARD_PROVIDER',
      email: 'buyer@example.test',
      client_token_hash: sha256(clientToken),
      provider_price: JSON.stringify({ amount: '0', currency: 'USD' }),
      expiration: new Date(Date.now() + 3600 * 1000),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    listingId: listing.id,
    purchaseIntentId: intent.id,
    clientToken,
    itemTypeId: itemType.id,
    itemId: item!.id,
    mintRequestId: mint.id,
    transferRequestId: transfer.id,
    emailClaimId: claim.id,
    claimToken,
  };
}

/** A webhook endpoint with one delivery in its log, inserted directly (no URL check, nothing sent). */
async function createFixtureWebhook(organizationId: string) {
  const db = env.database.db;
  const webhookId = uuidv7();
  await db
    .insertInto('webhooks')
    .values({
      id: webhookId,
      organization_id: organizationId,
      url: 'https://hooks.example.test/fixture',
      events: ['item.minted'],
      secret_encrypted: env.ctx.keyring.encrypt('whsec_Zml4dHVyZS1maXh0dXJlLWZpeHR1cmUtZml4dHVyZQ=='),
    })
    .execute();
  const eventId = uuidv7();
  await db
    .insertInto('webhook_events')
    .values({
      id: eventId,
      organization_id: organizationId,
      type: 'item.minted',
      resource_id: 'fixture',
      payload: '{}',
    })
    .execute();
  const deliveryId = uuidv7();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: deliveryId,
      webhook_id: webhookId,
      organization_id: organizationId,
      event_id: eventId,
      event_type: 'item.minted',
      resource_id: 'fixture',
      max_attempts: 7,
    })
    .execute();
  return { webhookId, webhookDeliveryId: deliveryId };
}

/**
 * Path parameters that name platform resources every organization reads (networks):
 * there is no other organization's resource to hide, so another organization's admin is served
 * like the owner (reads) or refused like any organization admin (platform writes).
 */
const SHARED_PARAMS = new Set(['network_id', 'template_type']);
const FIXTURE_NETWORK_ID = 990_001;

/** The shared network behind `network_id`; inserted directly, as no node answers in this suite. */
async function ensureFixtureNetwork(): Promise<void> {
  await env.insertNetwork(FIXTURE_NETWORK_ID, undefined, 'Security fixture network');
}

/** A PENDING transaction of the organization (never sent: no worker runs in this suite). */
async function createFixtureTransaction(organizationId: string): Promise<string> {
  const row = await insertTransaction(env.database.db, organizationId, {
    type: 'TRANSFER',
    network_id: FIXTURE_NETWORK_ID,
  });
  return row.id;
}

/**
 * Bodies for routes where `{}` would fail validation before the handler can decide 404; only
 * the 404 and owner checks need them (401 and 403 are decided before the body is read).
 */
const BODY_FIXTURES: Record<string, (t: Tenant) => unknown> = {
  'PATCH /v1/users/:user_id': () => ({ active: true }),
  'POST /v1/collections/:collection_id/deployment-request': () => ({
    type: 'PLATFORM',
    network_id: FIXTURE_NETWORK_ID,
    platform: { symbol: 'FIX', variant: 'FlexibleERC721' },
  }),
  'PATCH /v1/collections/:collection_id/functions/:function_id': () => ({ enabled: true }),
  'PATCH /v1/item-types/:item_type_id': () => ({ name: 'fixture', json_schema: { type: 'object' } }),
  'PATCH /v1/items/:item_id': () => ({ attributes: {} }),
  'PATCH /v1/webhooks/:webhook_id': () => ({ enabled: true }),
  'PATCH /v1/email-integrations/:integration_id': () => ({ config: { email_from: 'edited@example.test' } }),
  'POST /v1/email-integrations/:integration_id/test': () => ({ to: 'fixture@example.test' }),
  // A template type names each organization's own version: the routes are registered in the
  // order list, get, create (POST), edit (PATCH), revert (DELETE), so PATCH finds what POST made.
  'POST /v1/email-templates/:template_type': () => TEMPLATE_FIXTURE,
  'PATCH /v1/email-templates/:template_type': () => TEMPLATE_FIXTURE,
  'POST /v1/email-templates/:template_type/test': () => ({ ...TEMPLATE_FIXTURE, variables: [] }),
  'POST /v1/collections/:collection_id/functions/:function_id/call': () => ({
    arguments: ['https://x.test/'],
  }),
  'POST /v1/collections/:collection_id/functions/:function_id/execute': () => ({
    arguments: ['https://x.test/'],
  }),
};

const TEMPLATE_FIXTURE = { subject: 'Claim {{item_name}}', html: '<p><a href="{{claim_url}}">Claim</a></p>' };

/**
 * Routes whose owner call cannot succeed with one shared fixture, and the answer that still
 * proves the resource was found (never 401, 403 or 404).
 */
const OWNER_ANSWERS: Record<string, { status: number; code: ErrorCode; why: string }> = {
  'POST /v1/email-integrations/:integration_id/test': {
    status: 502,
    code: 'UPSTREAM_FAILED',
    why: "nothing listens at the fixture integration's SMTP server",
  },
  'POST /v1/collections/:collection_id/deployment-request': {
    status: 409,
    code: 'INVALID_STATE',
    why: 'the fixture collection is deployed already',
  },
  'POST /v1/collections/:collection_id/functions/:function_id/call': {
    status: 400,
    code: 'VALIDATION_FAILED',
    why: 'the fixture function is executable (setBaseURI), so it cannot be read',
  },
};

const env: TestEnv = await setupTest();
after(() => env.close());

const routes = registeredRoutes(env.app).filter((r) => r.url.startsWith('/v1/'));
const label = (r: RegisteredRoute) => `${r.method} ${r.url}`;
// Reachable without a user's credentials (anyone, a buyer's client_token, a claim link, a provider
// signature): each such route is a reviewed decision, listed in PUBLIC_ROUTES.
const isPublic = (r: RegisteredRoute) => r.access?.kind !== 'user' && r.access?.kind !== 'permission';
// Provider webhooks (the webhooks scope) sit below /v1/webhooks/, beside the API's own operations
// on an organization's webhook endpoints (/v1/webhooks, /v1/webhooks/:webhook_id…).
const isWebhook = (r: RegisteredRoute) => r.access?.kind === 'provider';
const permissionOf = (r: RegisteredRoute): Permission | undefined =>
  r.access?.kind === 'permission' ? r.access.permission : undefined;
const roleHas = (role: keyof typeof ROLE_PERMISSIONS, p: Permission | undefined) =>
  p === undefined || ROLE_PERMISSIONS[role].includes(p);

async function createTenant(options: { mfa_required?: boolean } = {}): Promise<Tenant> {
  await ensureFixtureNetwork();
  const organization = await env.createOrganization(undefined, options);
  const admin = await env.createUser(organization.id, 'ORG_ADMIN');
  const member = await env.createUser(organization.id, 'ORG_MEMBER');
  const apiKeyOf = async (actor: Actor) => {
    const response = await env.call('POST', '/v1/api-keys', {
      token: actor.token,
      body: { name: 'fixture' },
    });
    assert.equal(response.statusCode, 201, response.body);
    return { id: response.json().id as string, key: response.json().key as string };
  };
  // In an MFA-required organization, creating API keys is refused until MFA is on.
  const placeholder = { id: '00000000-0000-7000-8000-000000000000', key: 'tis_none' };
  const transactionId = await createFixtureTransaction(organization.id);
  const collectionId = await createFixtureCollection(organization.id);
  const campaign = await env.database.db
    .insertInto('marketing_campaigns')
    .values({ id: uuidv7(), organization_id: organization.id, name: 'fixture', email_from: 'Fixture' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    campaignId: campaign.id,
    organizationId: organization.id,
    admin,
    member,
    adminApiKey: options.mfa_required ? placeholder : await apiKeyOf(admin),
    memberApiKey: options.mfa_required ? placeholder : await apiKeyOf(member),
    transactionId,
    collectionId,
    ...(await createFixtureCatalog(organization.id, collectionId, transactionId)),
    ...(await createFixtureWebhook(organization.id)),
    emailIntegrationId: await createFixtureEmailIntegration(organization.id),
    platformCardProviderAccountId: await createFixturePlatformCardAccount(),
  };
}

/** A platform card-provider account, inserted directly (its secret key is never used here). */
async function createFixturePlatformCardAccount(): Promise<string> {
  const id = uuidv7();
  await env.database.db
    .insertInto('card_provider_platform_accounts')
    .values({
      id,
      name: `fixture ${id}`,
      mode: 'TEST',
      publishable_key: 'pk_test_fixture',
      secret_key_encrypted: env.ctx.keyring.encrypt('sk_test_fixture'),
      card_provider_account_id: 'acct_fixture',
      session_timeout_minutes: 15,
      fee_percentage_bps: null,
      config: null,
      account_webhook_endpoint_secret_encrypted: null,
      connect_webhook_endpoint_secret_encrypted: null,
    })
    .execute();
  return id;
}

/** An active CUSTOM_SMTP integration whose server (port 9 of loopback) answers nothing; inserted directly. */
async function createFixtureEmailIntegration(organizationId: string): Promise<string> {
  const row = await env.database.db
    .insertInto('email_integrations')
    .values({
      id: uuidv7(),
      organization_id: organizationId,
      provider: 'CUSTOM_SMTP',
      config: JSON.stringify({
        email_from: 'fixture@example.test',
        host: '127.0.0.1',
        port: 9,
        secure: false,
      }),
      secret_encrypted: null,
      active: true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

function fillPath(route: RegisteredRoute, tenant: Tenant): string {
  return route.url.replace(/:(\w+)/g, (_, name: string) => {
    const fixture = PATH_FIXTURES[name];
    if (!fixture) {
      assert.fail(
        `${label(route)}: no fixture for path parameter "${name}". Add one to PATH_FIXTURES in ` +
          'test/security.test.ts (and create the resource in createTenant) so the route joins the security suite.',
      );
    }
    return fixture(tenant);
  });
}

function send(
  route: RegisteredRoute,
  tenant: Tenant,
  credentials: { token?: string; apiKey?: string; headers?: Record<string, string> },
  body: 'empty' | 'fixture',
): Promise<LightMyRequestResponse> {
  const hasBody = route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT';
  const fixture = BODY_FIXTURES[label(route)];
  return env.call(route.method as 'GET', fillPath(route, tenant), {
    ...credentials,
    ...(hasBody && { body: body === 'fixture' && fixture ? fixture(tenant) : {} }),
  });
}

describe('security: the route table', () => {
  it('finds every /v1 operation of the OpenAPI document, and only those (webhooks are not documented)', async () => {
    const doc = (await env.call('GET', '/openapi.json')).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      )
      .sort();
    assert.ok(documented.length >= 20, `only ${documented.length} operations documented`);
    assert.deepEqual(
      routes
        .filter((r) => !isWebhook(r))
        .map(label)
        .sort(),
      documented,
    );
  });

  it('gives every /v1 route a declared access rule', () => {
    const undeclared = routes.filter((r) => r.access === undefined).map(label);
    assert.deepEqual(undeclared, []);
  });

  it('has a path fixture for every path parameter of every route', () => {
    const missing = [...new Set(routes.flatMap((r) => r.params))].filter((p) => !(p in PATH_FIXTURES));
    assert.deepEqual(
      missing,
      [],
      `add fixtures for ${missing.join(', ')} to PATH_FIXTURES in test/security.test.ts`,
    );
  });

  it('puts every provider-signed route below /v1/webhooks/', () => {
    const misplaced = routes
      .filter((r) => isWebhook(r) && !r.url.startsWith(`${WEBHOOKS_PREFIX}/`))
      .map(label);
    assert.deepEqual(misplaced, []);
  });

  it('lists exactly the public routes and the provider webhooks of PUBLIC_ROUTES', () => {
    assert.deepEqual(routes.filter(isPublic).map(label).sort(), PUBLIC_ROUTES);
  });
});

describe('security: no credentials', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  for (const route of routes.filter((r) => !isPublic(r))) {
    it(`${label(route)} answers 401 UNAUTHENTICATED without credentials, whatever the body`, async () => {
      assertError(await send(route, tenant, {}, 'empty'), 401, 'UNAUTHENTICATED', { what: 'no credentials' });
    });

    it(`${label(route)} answers 401 UNAUTHENTICATED to unknown credentials`, async () => {
      for (const credentials of [
        { token: 'not-a-token' },
        { token: 'tis_notakeynotakeynotakeynotakeynotakey' },
        { apiKey: 'tis_notakeynotakeynotakeynotakeynotakey' },
        { headers: { authorization: 'Basic dXNlcjpwYXNz' } },
      ]) {
        assertError(await send(route, tenant, credentials, 'empty'), 401, 'UNAUTHENTICATED', {
          what: JSON.stringify(credentials),
        });
      }
    });
  }

  it('checks credentials before parsing or validating anything (malformed params, non-JSON body)', async () => {
    const checked = routes.filter((r) => !isPublic(r));
    for (const route of checked) {
      const response = await env.app.inject({
        method: route.method as 'GET',
        url: route.url.replace(/:(\w+)/g, 'not-a-uuid'),
        headers: { 'content-type': 'application/json' },
        ...(route.method !== 'GET' && { payload: '{not json' }),
      });
      assertError(response, 401, 'UNAUTHENTICATED', { what: label(route) });
    }
  });

  for (const route of routes.filter((r) => isPublic(r) && r.access?.kind !== 'client_token')) {
    it(`${label(route)} is public: it never asks for credentials`, async () => {
      const response = await send(route, tenant, {}, 'empty');
      assert.ok(![401, 403].includes(response.statusCode), `${response.statusCode} ${response.body}`);
      assert.notEqual(response.json().error?.code, 'UNAUTHENTICATED');
    });
  }

  for (const route of routes.filter((r) => r.access?.kind === 'client_token')) {
    it(`${label(route)} needs X-Client-Token (401 without it), never a user's credentials`, async () => {
      assertError(await send(route, tenant, {}, 'empty'), 401, 'UNAUTHENTICATED', {
        what: 'no client token',
      });
      assertError(
        await send(route, tenant, { headers: { 'x-client-token': 'wrong' } }, 'empty'),
        404,
        'NOT_FOUND',
        {
          what: 'a wrong client token',
        },
      );
      const response = await send(
        route,
        tenant,
        { headers: { 'x-client-token': tenant.clientToken } },
        'empty',
      );
      assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
    });
  }
});

describe('security: an ORG_MEMBER', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  const denied = routes.filter((r) => !isPublic(r) && !roleHas('ORG_MEMBER', permissionOf(r)));
  it('lacks the permission of at least the write routes (the 403 checks are not vacuous)', () => {
    assert.ok(denied.length >= 5, `only ${denied.map(label).join(', ')}`);
  });

  for (const route of denied) {
    it(`${label(route)} answers 403 FORBIDDEN to an ORG_MEMBER (needs ${permissionOf(route)})`, async () => {
      assertError(await send(route, tenant, { token: tenant.member.token }, 'empty'), 403, 'FORBIDDEN', {
        what: 'member access token',
      });
      assertError(await send(route, tenant, { apiKey: tenant.memberApiKey.key }, 'empty'), 403, 'FORBIDDEN', {
        what: 'member API key',
      });
    });
  }

  for (const route of routes.filter((r) => !isPublic(r) && roleHas('ORG_MEMBER', permissionOf(r)))) {
    it(`${label(route)} lets an ORG_MEMBER through (its role grants it)`, async () => {
      const response = await send(route, tenant, { token: tenant.member.token }, 'fixture');
      assert.ok(![401, 403].includes(response.statusCode), `${response.statusCode} ${response.body}`);
    });
  }
});

describe('security: an organization that requires MFA', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant({ mfa_required: true });
  });

  for (const route of routes.filter((r) => !isPublic(r))) {
    const mfaPath = /^\/v1\/me(\/|$)/.test(route.url);
    it(`${label(route)} ${mfaPath ? 'stays open to' : 'answers 403 MFA_REQUIRED to'} a user without MFA`, async () => {
      const response = await send(route, tenant, { token: tenant.admin.token }, 'empty');
      if (mfaPath) assert.notEqual(response.json().error?.code, 'MFA_REQUIRED', response.body);
      else assertError(response, 403, 'MFA_REQUIRED', { what: 'admin without MFA' });
    });
  }
});

describe("security: another organization's resources", () => {
  let owner: Tenant;
  let stranger: Tenant;
  before(async () => {
    owner = await createTenant();
    stranger = await createTenant();
  });

  const withParams = routes.filter((r) => !isPublic(r) && r.params.length > 0);
  it('covers the routes with path parameters', () => {
    assert.ok(withParams.length >= 5, withParams.map(label).join(', '));
  });

  for (const route of withParams) {
    const adminMayCall = roleHas('ORG_ADMIN', permissionOf(route));
    if (adminMayCall && route.params.every((p) => SHARED_PARAMS.has(p))) {
      it(`${label(route)} serves the shared platform resource to any organization's admin`, async () => {
        const response = await send(route, owner, { token: stranger.admin.token }, 'fixture');
        // A test mail goes through the caller's organization's fixture integration, which nothing
        // answers: 502 also proves the shared resource was served.
        if (label(route) === 'POST /v1/email-templates/:template_type/test' && response.statusCode === 502)
          assertError(response, 502, 'UPSTREAM_FAILED');
        else assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
      });
      continue;
    }
    it(`${label(route)} answers ${adminMayCall ? '404 NOT_FOUND' : '403 FORBIDDEN'} to another organization's admin`, async () => {
      for (const credentials of [{ token: stranger.admin.token }, { apiKey: stranger.adminApiKey.key }]) {
        const response = await send(route, owner, credentials, 'fixture');
        if (adminMayCall) assertError(response, 404, 'NOT_FOUND', { what: "another organization's admin" });
        else assertError(response, 403, 'FORBIDDEN', { what: "another organization's admin" });
      }
    });
  }
});

describe('security: the owner', () => {
  // A separate tenant: these calls may change its resources (a DELETE revokes the fixture key).
  let owner: Tenant;
  before(async () => {
    owner = await createTenant();
  });

  // Platform writes (networks) are refused to every organization admin: the 403 suites cover them.
  const ownerMayCall = (r: RegisteredRoute) => roleHas('ORG_ADMIN', permissionOf(r));
  for (const route of routes.filter((r) => !isPublic(r) && r.params.length > 0 && ownerMayCall(r))) {
    it(`${label(route)} finds organization A's resource for organization A's admin`, async () => {
      const response = await send(route, owner, { token: owner.admin.token }, 'fixture');
      const expected = OWNER_ANSWERS[label(route)];
      if (expected) assertError(response, expected.status, expected.code, { what: expected.why });
      else assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
    });
  }
});
