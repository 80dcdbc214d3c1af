import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { insertCollection } from '../../../../../test/factories.ts';
import type { Actor, TestEnv } from '../../../../../test/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import {
  closeOpenBatches,
  type insertItem,
  insertItems,
} from '../../../../../test/support/token-requests.ts';
import type { CollectionRow, TransactionRow } from '../../../../db/schema.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';

/**
 * What the email-claims test files share (email-claims-create, email-claims-redeem,
 * email-claims-lifecycle.test.ts): the organization and users their tests run as, the claims and
 * items they make and the rows they read. Each file has a database of its own (setupTest in its
 * `before`): no test depends on another file's rows.
 */

export const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** Who the tests run as: an organization's admin and member, and the admin of another one. */
export interface EmailClaimsFixture {
  organizationId: string;
  admin: Actor;
  member: Actor;
  other: Actor;
}

/** The chain the collections are on (31337) and the tenant of the tests. */
export async function seedEmailClaims(env: TestEnv): Promise<EmailClaimsFixture> {
  await env.insertNetwork(31337);
  const { organizationId, admin, member, stranger } = await env.createTenant();
  return { organizationId, admin, member, other: stranger };
}

/**
 * The helpers of the tests, on the file's environment, organization and admin as they are at the
 * call (`fixture` is read each time: the file sets them in `before`).
 */
export function emailClaimCalls(fixture: () => { env: TestEnv; organizationId: string; admin: Actor }) {
  let seq = 5000n;
  let mails = 0;
  const env = () => fixture().env;
  const db = () => env().database.db;
  const client = () => claimClient(env(), freshIp);

  const collection = (fields: Partial<Parameters<typeof insertCollection>[1]> = {}) =>
    insertCollection(db(), {
      organizationId: fixture().organizationId,
      deployedOn: 'FlexibleERC721',
      ...fields,
    });
  const erc1155Collection = () => collection({ deployedOn: 'FlexibleERC1155' });
  const items = (c: CollectionRow, count: number, fields: Partial<Parameters<typeof insertItem>[1]> = {}) => {
    const first = seq;
    seq += BigInt(count);
    return insertItems(db(), count, {
      collectionId: c.id,
      organizationId: c.organization_id,
      firstTokenId: first,
      ...fields,
    });
  };
  const newEmail = () => `recipient-${++mails}@example.com`;
  const create = (
    body: Record<string, unknown>,
    token = fixture().admin.token,
    headers: Record<string, string> = {},
  ) => env().call('POST', '/v1/email-claims', { token, body: { quantity: 1, ...body }, headers });
  /** A claim on a fresh item, its link's token and its email. */
  const claim = async (fields: Record<string, unknown> = {}, c?: CollectionRow) => {
    const coll = c ?? (await collection());
    const [item] = await items(coll, 1);
    const email = newEmail();
    const response = await create({ email, item_id: item!.id, ...fields });
    assert.equal(response.statusCode, 201, response.body);
    return {
      claim: response.json(),
      token: await claimTokenFromMail(env(), email),
      email,
      item: item!,
      collection: coll,
    };
  };
  const claimCount = async () =>
    Number(
      (
        await db()
          .selectFrom('email_claims')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const activeReservation = (itemId: string) =>
    db()
      .selectFrom('item_reservations')
      .selectAll()
      .where('item_id', '=', itemId)
      .where('released_at', 'is', null)
      .executeTakeFirst();
  /** Verify, then read the PIN from the mail. */
  const pinFor = async (token: string, email: string) => {
    const verified = await client().verify(token);
    assert.equal(verified.statusCode, 200, verified.body);
    return pinFromMail(env(), email);
  };
  /** Lets verify mail again at once (the one-a-minute rule is tested on its own). */
  const forgetPinMail = (claimId: string) =>
    db()
      .updateTable('email_claims')
      .set({ last_pin_code_email_sent_at: new Date(Date.now() - 61_000) })
      .where('id', '=', claimId)
      .execute();
  const mintRequest = (itemId: string) =>
    env().call('POST', '/v1/mint-requests', {
      token: fixture().admin.token,
      body: { item_id: itemId, to_address: randomAddress() },
    });
  const settle = async (transactionId: string, columns: Record<string, unknown>) => {
    await closeOpenBatches(env().ctx);
    const row = (await db()
      .updateTable('transactions')
      .set({ ...columns, completed_at: new Date() })
      .where('id', '=', transactionId)
      .returningAll()
      .executeTakeFirstOrThrow()) as TransactionRow;
    // Twice: a settlement job may run again; nothing may happen twice.
    for (let i = 0; i < 2; i++) await settleTransaction(db(), env().ctx, row.id);
  };

  return {
    db,
    client,
    collection,
    erc1155Collection,
    items,
    newEmail,
    create,
    claim,
    claimCount,
    activeReservation,
    pinFor,
    forgetPinMail,
    mintRequest,
    settle,
  };
}
