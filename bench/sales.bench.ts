import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { platformContracts } from '../src/chain/artifacts.ts';
import { capabilitiesOf } from '../src/chain/capabilities.ts';
import { LIMITS } from '../src/modules/purchase-intents/purchase-intents.service.ts';
import { expireDueIntents } from '../src/modules/purchase-intents/purchase-payments.service.ts';
import { insertCollection } from '../test/factories.ts';
import { setupTest, type TestEnv } from '../test/harness.ts';
import { installTestPaymentProvider } from '../test/support/payment-sessions.ts';
import { createPaidListing, listingCounters, randomAddress } from '../test/support/sales.ts';
import { insertItem, insertItems } from '../test/support/token-requests.ts';
import type { LoadResult } from './load.ts';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SALES_SECONDS ?? 5);

type Measured = LoadResult & { statuses: Record<string, number>; cpuPerRequest: number };

/**
 * Load from its own process (bench/load-process.ts), so client and service do not share a CPU
 * loop, with the CPU time (µs) this process, which serves the requests, spent per request.
 */
async function loadFrom(spec: Record<string, unknown>): Promise<Measured> {
  const before = process.cpuUsage();
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'bench/load-process.ts', JSON.stringify(spec)],
    {
      maxBuffer: 1 << 20,
    },
  );
  const { user, system } = process.cpuUsage(before);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Omit<Measured, 'cpuPerRequest'>;
  return { ...result, cpuPerRequest: (user + system) / Math.max(1, result.requests) };
}

function line(name: string, result: Measured, baseline?: Measured): string {
  const ratios = baseline
    ? `  ${(result.perSecond / baseline.perSecond).toFixed(3)}× baseline req/s, p99 ${(result.p99Ms / baseline.p99Ms).toFixed(2)}× baseline`
    : '  (baseline)';
  return `${name.padEnd(48)} ${result.perSecond.toFixed(0).padStart(6)}/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  ${result.cpuPerRequest.toFixed(0)} µs CPU/req${ratios}${result.errors ? `  ERRORS ${result.errors}` : ''}`;
}

/** Card intents of one unit of the listing, each for a buyer of its own (`{{n}}`). */
function intentLoad(base: string, listingId: string, buyers: string) {
  return {
    url: `${base}/v1/public/purchase-intents`,
    method: 'POST',
    body: JSON.stringify({
      listing_id: listingId,
      quantity: 1,
      provider: 'CARD_PROVIDER',
      buyer: { email: `${buyers}-{{n}}@bench.example` },
    }),
  };
}

/** The figure's goal, from the sales issue: intents answered per second. */
const GOAL_PER_SECOND = 1000;
const DROP = { units: 100, requests: 2000, connections: 200, rounds: 3 };

/**
 * A drop: `DROP.requests` creations at once (`DROP.connections` at a time) against a collection
 * listing of `DROP.units` ERC-721 items, each for a new buyer. Checks what must hold (exactly
 * `units` held, every other creation 422 INSUFFICIENT_SUPPLY, every hold freed by the expiry) and
 * answers the load's figures.
 */
async function drop(
  env: TestEnv,
  organizationId: string,
  token: string,
): Promise<Measured & { checked: string }> {
  const collection = await insertCollection(env.database.db, {
    organizationId,
    deployedOn: 'FlexibleERC721',
  });
  await insertItems(env.database.db, DROP.units, {
    collectionId: collection.id,
    organizationId,
    firstTokenId: 1n,
  });
  const listing = await createPaidListing(env, token, { collection_id: collection.id });
  const base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
  const result = await loadFrom({
    ...intentLoad(base, listing.id, 'drop'),
    requests: DROP.requests,
    connections: DROP.connections,
    expectStatus: [201, 422],
  });
  const counters = () => listingCounters(env, listing.id);
  const refused = await env.database.db
    .selectFrom('purchase_intents')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('listing_id', '=', listing.id)
    .executeTakeFirstOrThrow();
  const problems: string[] = [];
  const held = result.statuses['201'] ?? 0;
  if (held !== DROP.units) problems.push(`${held} created, not ${DROP.units}`);
  if ((result.statuses['422'] ?? 0) !== DROP.requests - DROP.units)
    problems.push(`answers ${JSON.stringify(result.statuses)}`);
  if (Number(refused.count) !== DROP.units) problems.push(`${refused.count} intents stored`);
  if ((await counters()).quantity_held !== DROP.units) problems.push('held counter wrong');
  await env.database.db
    .updateTable('purchase_intents')
    .set({ expiration: new Date(Date.now() - 1000) })
    .where('listing_id', '=', listing.id)
    .execute();
  await expireDueIntents(env.database.db, env.ctx, DROP.requests);
  if ((await counters()).quantity_held !== 0) problems.push('holds left after expiry');
  return {
    ...result,
    checked:
      problems.length === 0
        ? `${DROP.units} held, ${DROP.requests - DROP.units} refused 422 INSUFFICIENT_SUPPLY, all ${DROP.units} free again after expiry`
        : `WRONG: ${problems.join('; ')}`,
  };
}

/**
 * Purchase intent creation (POST /v1/public/purchase-intents: the listing row locked, the hold
 * taken, the intent and its expiry job written) against two baselines served by the same process
 * in the same run: GET /healthz (the HTTP stack alone) and the public listing read (one indexed
 * SELECT). Every intent holds one unit of an ERC1155 item listed with a billion units, each for a
 * new buyer, so none is refused.
 */
export async function salesBench(): Promise<void> {
  const env = await setupTest();
  try {
    await env.insertNetwork(31337);
    const { admin, organizationId } = await env.createTenant();
    const collection = await insertCollection(env.database.db, {
      organizationId,
      contractAddress: randomAddress(),
      tokenType: 'ERC1155',
      abi: [...platformContracts.FlexibleERC1155.abi],
      capabilities: capabilitiesOf(platformContracts.FlexibleERC1155.abi),
    });
    const item = await insertItem(env.database.db, {
      collectionId: collection.id,
      organizationId,
      tokenId: 1n,
      maxSupply: 1_000_000_000n,
    });
    // Card intents go through an in-memory provider: this measures the hold, not a provider's API.
    installTestPaymentProvider();
    const listing = await createPaidListing(env, admin.token, { item_id: item.id });
    // One client address sends all the load.
    LIMITS.perIp = { ...LIMITS.perIp, max: Number.MAX_SAFE_INTEGER };
    const base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    const intent = {
      ...intentLoad(base, listing.id, 'buyer'),
      expectStatus: 201,
      seconds: SECONDS,
    };
    const health = { url: `${base}/healthz`, seconds: SECONDS };
    const publicListing = { url: `${base}/v1/public/listings/${listing.id}`, seconds: SECONDS };
    // Warm-up: JIT, pools.
    for (const spec of [health, publicListing, intent]) await loadFrom({ ...spec, seconds: 1 });

    const baseline = await loadFrom(health);
    const read = await loadFrom(publicListing);
    const created = await loadFrom(intent);
    const held = await env.database.db
      .selectFrom('listings')
      .select('quantity_held')
      .where('id', '=', listing.id)
      .executeTakeFirstOrThrow();
    const drops: (Measured & { checked: string })[] = [];
    for (let round = 0; round < DROP.rounds; round++)
      drops.push(await drop(env, organizationId, admin.token));
    const median = [...drops].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(DROP.rounds / 2)]!;
    process.stdout.write(
      [
        line('baseline: GET /healthz', baseline),
        line('GET /v1/public/listings/{id}', read, baseline),
        line('POST /v1/public/purchase-intents, every one held', created, baseline),
        `  intents created: ${created.statuses['201'] ?? 0}, units held: ${held.quantity_held}, answers: ${JSON.stringify(created.statuses)}`,
        ...drops.map((d, i) =>
          line(`drop ${i + 1}: ${DROP.requests} creations, ${DROP.units} units`, d, baseline),
        ),
        `  ${drops.map((d) => d.checked).join(' | ')}`,
        `drop of ${DROP.requests} creations (${DROP.connections} at a time) on ${DROP.units} units, median of ${DROP.rounds}: ${median.perSecond.toFixed(0)} intents/s, p99 ${median.p99Ms.toFixed(1)} ms  goal ≥ ${GOAL_PER_SECOND}/s  ${median.perSecond >= GOAL_PER_SECOND ? 'met' : 'NOT met'}`,
      ].join('\n') + '\n',
    );
  } finally {
    await env.close();
  }
}
