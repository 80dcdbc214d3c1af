import assert from 'node:assert/strict';
import { type Abi, getAddress, zeroAddress } from 'viem';
import type { Actor, TestEnv } from '../../../../../test/harness.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { capabilitiesOf } from '../../../../chain/capabilities.ts';
import { uuidv7 } from '../../../../lib/ids.ts';

/**
 * What the collections test files share (collections-create-read, collections-edit,
 * collections-deploy.test.ts): the networks, organizations and users of `describe('collections')`,
 * the requests its tests send and the rows they read. Each file has a database of its own
 * (setupTest in its `before`): no test depends on another file's rows.
 */

export const NETWORK = 31337;
export const DISABLED_NETWORK = 5;
export const OTHER_NETWORK = 7;
export const RECEIVER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const PREVIEW = { name: 'Soon', image: 'https://img.test/hidden.png' };

export const flexible721 = platformContracts.FlexibleERC721;
/** Constructor arguments of a platform artifact deployed as CUSTOM. */
export const PLATFORM_ARGS = [
  'Custom',
  'CST',
  'https://c.test/',
  'https://c.test/c',
  RECEIVER,
  '0',
  zeroAddress,
  0,
];

export function platformRequest(
  overrides: Record<string, unknown> = {},
  platform: Record<string, unknown> = {},
) {
  return {
    type: 'PLATFORM',
    network_id: NETWORK,
    platform: { symbol: 'FIX', variant: 'FlexibleERC721', ...platform },
    ...overrides,
  };
}

export function customRequest(custom: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  return { type: 'CUSTOM', network_id: NETWORK, custom, ...overrides };
}

/** The address with the case of its first letter flipped: a wrong EIP-55 checksum. */
export function badChecksum(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i]!;
  return (
    address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1)
  );
}

/** Who and what the tests of `describe('collections')` work with. */
export interface CollectionsFixture {
  orgId: string;
  admin: Actor;
  member: Actor;
  /** The ORG_ADMIN of another organization. */
  stranger: Actor;
  itemTypeId: string;
  /** An item type of the stranger's organization. */
  strangerItemTypeId: string;
}

/**
 * NETWORK, DISABLED_NETWORK (disabled) and OTHER_NETWORK; two organizations on NETWORK and
 * DISABLED_NETWORK, one with an admin and a member, the other with its admin; an item type in each.
 */
export async function seedCollections(env: TestEnv): Promise<CollectionsFixture> {
  await env.insertNetwork(NETWORK);
  await env.insertNetwork(DISABLED_NETWORK);
  await env.insertNetwork(OTHER_NETWORK);
  await env.database.db
    .updateTable('networks')
    .set({ enabled: false })
    .where('id', '=', DISABLED_NETWORK)
    .execute();
  const org = await env.createOrganization();
  const other = await env.createOrganization();
  for (const id of [org.id, other.id])
    await env.database.db
      .updateTable('organizations')
      .set({ network_ids: [NETWORK, DISABLED_NETWORK] })
      .where('id', '=', id)
      .execute();
  const insertItemType = async (organizationId: string) => {
    const id = uuidv7();
    await env.database.db
      .insertInto('item_types')
      .values({ id, organization_id: organizationId, name: 'type', json_schema: JSON.stringify({}) })
      .execute();
    return id;
  };
  return {
    orgId: org.id,
    admin: await env.createUser(org.id, 'ORG_ADMIN'),
    member: await env.createUser(org.id, 'ORG_MEMBER'),
    stranger: await env.createUser(other.id, 'ORG_ADMIN'),
    itemTypeId: await insertItemType(org.id),
    strangerItemTypeId: await insertItemType(other.id),
  };
}

/**
 * The requests and reads of the tests, as the admin unless another token is given; `fixture` is
 * read at each call (the file sets its environment and admin in `before`).
 */
export function collectionCalls(fixture: () => { env: TestEnv; admin: Actor }) {
  let counter = 0;
  const db = () => fixture().env.database.db;

  const uniqueName = (prefix = 'Collection') => `${prefix} ${++counter}`;

  function create(body: Record<string, unknown>, token = fixture().admin.token) {
    return fixture().env.call('POST', '/v1/collections', { token, body });
  }

  async function created(body: Record<string, unknown> = {}, token = fixture().admin.token) {
    const response = await create({ name: uniqueName(), ...body }, token);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  }

  function edit(id: string, body: unknown, token = fixture().admin.token) {
    return fixture().env.call('PATCH', `/v1/collections/${id}`, { token, body });
  }

  function requestDeployment(id: string, body: unknown, token = fixture().admin.token) {
    return fixture().env.call('POST', `/v1/collections/${id}/deployment-request`, { token, body });
  }

  async function get(id: string, token = fixture().admin.token) {
    const response = await fixture().env.call('GET', `/v1/collections/${id}`, { token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  async function row(id: string) {
    return db().selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function transactionCount() {
    const result = await db()
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(result.n);
  }

  async function transaction(id: string) {
    return db().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Moves a collection's deployment as a settled transaction would (no chain here). */
  async function markDeployed(id: string, fields: { abi?: Abi; capabilities?: string[] } = {}) {
    const abi = fields.abi ?? (flexible721.abi as Abi);
    await db()
      .updateTable('collections')
      .set({
        deployment_type: 'PLATFORM',
        deployment_status: 'SUCCESS',
        network_id: NETWORK,
        token_type: 'ERC721',
        symbol: 'DEP',
        token_id_assignment_strategy: 'AUTOMATIC',
        abi: JSON.stringify(abi),
        contract_address: getAddress(`0x${'ab'.repeat(20)}`),
        capabilities: fields.capabilities ?? capabilitiesOf(abi),
      })
      .where('id', '=', id)
      .execute();
  }

  return {
    uniqueName,
    create,
    created,
    edit,
    requestDeployment,
    get,
    row,
    transactionCount,
    transaction,
    markDeployed,
  };
}
