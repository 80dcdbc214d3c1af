import assert from 'node:assert/strict';
import { insertCollection } from '../../../../../test/factories.ts';
import type { Actor, Tenant, TestEnv } from '../../../../../test/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import { confirmPurchaseIntent } from '../purchase-confirmation.service.ts';
import { deliverPurchaseIntent } from '../purchase-delivery.service.ts';

/**
 * What the purchase-intents test files share (purchase-intents-create, purchase-intents-confirmation,
 * purchase-intents-erc1155.test.ts): the tenant their tests sell as, the purchases they make and
 * the rows they read. Each file has a database of its own (setupTest in its `before`, with the
 * in-memory payment provider of test/support/payment-sessions.ts): no test depends on another
 * file's rows.
 */

/** The chain the collections are on (31337) and the tenant of the tests. */
export async function seedPurchaseIntents(env: TestEnv): Promise<Tenant> {
  await env.insertNetwork(31337);
  return env.createTenant();
}

/**
 * The helpers of the tests, on the file's environment, organization and admin as they are at the
 * call (`fixture` is read each time: the file sets them in `before`). `tokenIds(count)` answers the
 * first of `count` fresh token ids, from the counter the file's tests also draw on.
 */
export function purchaseIntentCalls(
  fixture: () => { env: TestEnv; organizationId: string; admin: Actor },
  tokenIds: (count: number) => bigint,
) {
  let buyers = 0;
  const env = () => fixture().env;
  const db = () => env().database.db;

  const collection = () =>
    insertCollection(db(), { organizationId: fixture().organizationId, deployedOn: 'FlexibleERC721' });
  const items = (c: CollectionRow, count: number) =>
    insertItems(db(), count, {
      collectionId: c.id,
      organizationId: c.organization_id,
      firstTokenId: tokenIds(count),
    });
  const newEmail = () => `buyer-${++buyers}@example.com`;
  const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}, ip = freshIp()) =>
    env().call('POST', '/v1/public/purchase-intents', {
      body: { quantity: 1, provider: 'EMAIL_CLAIM', ...body },
      headers,
      ip,
    });
  const bought = async (body: Record<string, unknown>) => {
    const response = await buy(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const listingOf = async (id: string) =>
    (await env().call('GET', `/v1/listings/${id}`, { token: fixture().admin.token })).json();
  const intentOf = async (id: string) =>
    (await env().call('GET', `/v1/purchase-intents/${id}`, { token: fixture().admin.token })).json();
  const deliver = (id: string) =>
    db()
      .transaction()
      .execute((tx) => deliverPurchaseIntent(tx, env().ctx, id));
  const itemRow = (id: string) =>
    db().selectFrom('items').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const confirm = (id: string) =>
    db()
      .transaction()
      .execute((tx) => confirmPurchaseIntent(tx, env().ctx, id));

  return { db, collection, items, newEmail, buy, bought, listingOf, intentOf, deliver, itemRow, confirm };
}
