import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { organizationWalletOf } from '../../wallets/wallets.service.ts';
import { queueTransaction } from '../transactions.service.ts';

describe('GET /v1/transactions and /v1/transactions/{id}', () => {
  let env: TestEnv;
  let member: Actor;
  let other: Actor;
  let ids: { mint: string; funding: string; elsewhere: string; otherOrg: string };
  before(async () => {
    env = await setupTest();
    for (const id of [31337, 5]) await env.insertNetwork(id);
    const org = await env.createOrganization();
    const otherOrg = await env.createOrganization();
    member = await env.createUser(org.id, 'ORG_MEMBER');
    other = await env.createUser(otherOrg.id, 'ORG_ADMIN');
    const wallet = await organizationWalletOf(env.database.db, org.id);
    const otherWallet = await organizationWalletOf(env.database.db, otherOrg.id);
    const queue = (networkId: number, w = wallet, type: 'MINT' | 'FUNDING' = 'MINT') =>
      queueTransaction(env.database.db, { networkId, wallet: w, type, to: w.address, data: '0x', value: 5n });
    ids = {
      mint: (await queue(31337)).id,
      funding: (await queue(31337, wallet, 'FUNDING')).id,
      elsewhere: (await queue(5)).id,
      otherOrg: (await queue(31337, otherWallet)).id,
    };
  });
  after(() => env.close());

  const list = async (token: string, query: Record<string, string | string[]> = {}) => {
    const response = await env.call('GET', '/v1/transactions', { token, query });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().results as { id: string }[]).map((r) => r.id);
  };

  it("lists only the caller's organization's transactions; platform admins see all", async () => {
    assert.deepEqual(await list(member.token), [ids.mint, ids.funding, ids.elsewhere]);
    assert.deepEqual(await list(other.token), [ids.otherOrg]);
    const all = await list(env.platformAdmin.token);
    for (const id of Object.values(ids)) assert.ok(all.includes(id));
  });

  it('filters by network, state, type and wallet', async () => {
    assert.deepEqual(await list(member.token, { network_id: '5' }), [ids.elsewhere]);
    assert.deepEqual(await list(member.token, { type: 'FUNDING' }), [ids.funding]);
    assert.deepEqual(await list(member.token, { state: 'PENDING', network_id: '31337' }), [
      ids.mint,
      ids.funding,
    ]);
    assert.deepEqual(await list(member.token, { state: 'COMPLETED' }), []);
    const row = await env.database.db
      .selectFrom('transactions')
      .select('wallet_id')
      .where('id', '=', ids.mint)
      .executeTakeFirstOrThrow();
    assert.equal((await list(member.token, { wallet_id: row.wallet_id })).length, 3);
    const bad = await env.call('GET', '/v1/transactions', { token: member.token, query: { state: 'LOST' } });
    assert.equal(bad.statusCode, 400);
  });

  it("takes the real platform's filter names too: network_ids, tx_types, states, signers (repeated, any of)", async () => {
    assert.deepEqual(await list(member.token, { network_ids: ['5', '31337'] }), [
      ids.mint,
      ids.funding,
      ids.elsewhere,
    ]);
    assert.deepEqual(await list(member.token, { network_ids: '5' }), [ids.elsewhere]);
    assert.deepEqual(await list(member.token, { tx_types: ['FUNDING', 'DEPLOY'] }), [ids.funding]);
    assert.deepEqual(await list(member.token, { states: ['PENDING', 'QUEUED'], network_ids: '31337' }), [
      ids.mint,
      ids.funding,
    ]);
    assert.deepEqual(await list(member.token, { states: 'COMPLETED' }), []);
    const signer = (
      await env.database.db
        .selectFrom('transactions')
        .select('from_address')
        .where('id', '=', ids.mint)
        .executeTakeFirstOrThrow()
    ).from_address;
    // Any case: a signer is an address like any other (docs/api.md#conventions).
    assert.equal((await list(member.token, { signers: signer.toLowerCase() })).length, 3);
    assert.deepEqual(await list(member.token, { signers: `0x${'ab'.repeat(20)}` }), []);
    // Beside today's names, both apply.
    assert.deepEqual(await list(member.token, { network_ids: ['5', '31337'], network_id: '5' }), [
      ids.elsewhere,
    ]);
    const invalid: Record<string, string>[] = [
      { states: 'LOST' },
      { tx_types: 'NOPE' },
      { network_ids: 'x' },
      { signers: '0x12' },
    ];
    for (const query of invalid) {
      assertError(
        await env.call('GET', '/v1/transactions', { token: member.token, query }),
        400,
        'VALIDATION_FAILED',
      );
    }
    const mixedCase = `0x${'aB'.repeat(20)}`;
    assertError(
      await env.call('GET', '/v1/transactions', { token: member.token, query: { signers: mixedCase } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('gets one with its state, addresses, value as a decimal string and empty chain fields while pending', async () => {
    const response = await env.call('GET', `/v1/transactions/${ids.mint}`, { token: member.token });
    assert.equal(response.statusCode, 200, response.body);
    const tx = response.json();
    assert.equal(tx.state, 'PENDING');
    assert.equal(tx.type, 'MINT');
    assert.equal(tx.network_id, 31337);
    assert.equal(tx.value, '5');
    assert.equal(tx.tx_hash, null);
    assert.equal(tx.nonce, null);
    assert.equal(tx.on_chain_status, null);
    assert.equal(tx.attempts, 0);
    assert.deepEqual(Object.keys(tx.fees).sort(), [
      'effective_gas_price',
      'fee',
      'gas_price',
      'gas_used',
      'max_fee_per_gas',
      'max_priority_fee_per_gas',
    ]);
  });

  it("answers 404 for another organization's transaction and for an unknown id", async () => {
    const foreign = await env.call('GET', `/v1/transactions/${ids.mint}`, { token: other.token });
    assertError(foreign, 404, 'NOT_FOUND');
    const unknown = await env.call('GET', '/v1/transactions/0190f1c0-0000-7000-8000-00000000ffff', {
      token: member.token,
    });
    assert.equal(unknown.statusCode, 404);
  });
});
