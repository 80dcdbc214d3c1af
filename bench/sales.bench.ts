import { platformContracts } from '../src/chain/artifacts.ts';
import { capabilitiesOf } from '../src/chain/capabilities.ts';
import { expireDueIntents } from '../src/modules/purchase-intents/purchase-payments.service.ts';
import { insertCollection } from '../test/factories.ts';
import { setupTest, type TestEnv } from '../test/harness.ts';
import { createPlatformAccount, PLATFORM_KEYS, setUpCardProvider } from '../test/support/card-provider.ts';
import { createListing, listingCounters, randomAddress } from '../test/support/sales.ts';
import { type StripeStandin, startStripeStandin } from '../test/support/stripe-standin.ts';
import { insertItem, insertItems } from '../test/support/token-requests.ts';
import { buildIfStale, type LoadSpec, loadFrom, type Measured, measure, startService } from './service.ts';

const SECONDS = Number(process.env.BENCH_SALES_SECONDS ?? 5);

/** The figure's goal, from the sales issue: intents answered per second. */
const GOAL_PER_SECOND = 1000;
const DROP = {
  units: 100,
  requests: 2000,
  connections: 200,
  rounds: Number(process.env.BENCH_SALES_DROPS ?? 3),
};

function line(name: string, result: Measured, baseline?: Measured): string {
  const ratios = baseline
    ? `  ${(result.perSecond / baseline.perSecond).toFixed(3)}× baseline req/s, p99 ${(result.p99Ms / baseline.p99Ms).toFixed(2)}× baseline`
    : '  (baseline)';
  const database =
    result.databaseCpuPerRequest === undefined
      ? ''
      : `, PostgreSQL ${result.databaseCpuPerRequest.toFixed(0)}`;
  return `${name.padEnd(48)} ${result.perSecond.toFixed(0).padStart(6)}/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  CPU µs/req: service ${result.cpuPerRequest.toFixed(0)}${database}, load ${result.loadCpuPerRequest.toFixed(0)}${ratios}${result.errors ? `  ERRORS ${result.errors}` : ''}`;
}

/**
 * Card intents of one unit of the listing, each for a buyer of its own (`{{n}}`) from a client
 * address of its own (`{{ip}}`, through the proxy the service trusts), as a drop's buyers come.
 */
function intentLoad(base: string, listingId: string, buyers: string): LoadSpec {
  return {
    url: `${base}/v1/public/purchase-intents`,
    method: 'POST',
    headers: { 'x-forwarded-for': '{{ip}}' },
    body: JSON.stringify({
      listing_id: listingId,
      quantity: 1,
      provider: 'CARD_PROVIDER',
      buyer: { email: `${buyers}-{{n}}@bench.example` },
    }),
  };
}

/** A card listing through the API (the organization's card set-up done), 5.00 USD a unit. */
function cardListing(env: TestEnv, token: string, selector: Record<string, string>) {
  return createListing(env, token, {
    ...selector,
    currency: 'USD',
    price: '500',
    max_quantity_per_tx: 1,
    payment_providers: ['CARD_PROVIDER'],
  });
}

/**
 * A drop: `DROP.requests` creations at once (`DROP.connections` at a time) against a collection
 * listing of `DROP.units` ERC-721 items, each for a new buyer. Checks what must hold (exactly
 * `units` held, each with its PaymentIntent at the provider, every other creation 422
 * INSUFFICIENT_SUPPLY, every hold freed by the expiry, as the worker's sweep does it) and answers
 * the load's figures.
 */
async function drop(
  env: TestEnv,
  standin: StripeStandin,
  organizationId: string,
  token: string,
  load: (spec: LoadSpec) => Promise<Measured>,
  base: string,
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
  const listing = await cardListing(env, token, { collection_id: collection.id });
  const sessionsBefore = standin.paymentIntents.size;
  const result = await load({
    ...intentLoad(base, listing.id, `drop-${listing.id}`),
    requests: DROP.requests,
    connections: DROP.connections,
    expectStatus: [201, 422],
  });
  const counters = () => listingCounters(env, listing.id);
  const stored = await env.database.db
    .selectFrom('purchase_intents')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('listing_id', '=', listing.id)
    .where('card_provider_payment_intent_id', 'is not', null)
    .executeTakeFirstOrThrow();
  const problems: string[] = [];
  const held = result.statuses['201'] ?? 0;
  if (held !== DROP.units) problems.push(`${held} created, not ${DROP.units}`);
  if ((result.statuses['422'] ?? 0) !== DROP.requests - DROP.units)
    problems.push(`answers ${JSON.stringify(result.statuses)}`);
  if (Number(stored.count) !== DROP.units) problems.push(`${stored.count} intents stored with a session`);
  if (standin.paymentIntents.size - sessionsBefore !== DROP.units)
    problems.push(`${standin.paymentIntents.size - sessionsBefore} PaymentIntents at the provider`);
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
 * Purchase intent creation (POST /v1/public/purchase-intents: the hold and the intent in one
 * statement, then the PaymentIntent opened at the card provider and stored) against the service
 * started as production runs it (bench/service.ts), its card provider a Stripe stand-in reached
 * through the real SDK (STRIPE_API_BASE; the stand-in runs in this process, the load in another).
 * Two baselines from the same service in the same run: GET /healthz (the HTTP stack alone) and
 * the public listing read (one indexed SELECT). Figures: every intent held (an ERC-1155 item
 * listed with a billion units), and the drop of the sales issue, with its checks.
 */
export async function salesBench(): Promise<void> {
  buildIfStale();
  const standin = await startStripeStandin({
    secretKeys: [PLATFORM_KEYS.secretKey],
    publishableKeys: [PLATFORM_KEYS.publishableKey],
  });
  const env = await setupTest({ STRIPE_API_BASE: standin.url });
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    await env.insertNetwork(31337);
    const { admin, organizationId } = await env.createTenant();
    const platformId = await createPlatformAccount(env);
    await setUpCardProvider(env, standin, organizationId, admin.token, platformId);
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
    const listing = await cardListing(env, admin.token, { item_id: item.id });
    service = await startService(env.databaseUrl, {
      env: { STRIPE_API_BASE: standin.url, TRUST_PROXY: 'true' },
      profile: true,
    });
    const pid = service.pid;
    const load = (spec: LoadSpec) => measure(spec, pid, env.database.db);
    const base = service.url;
    const intent = { ...intentLoad(base, listing.id, 'buyer'), expectStatus: 201, seconds: SECONDS };
    const health = { url: `${base}/healthz`, seconds: SECONDS };
    const publicListing = { url: `${base}/v1/public/listings/${listing.id}`, seconds: SECONDS };
    // Warm-up: JIT, pools.
    for (const spec of [health, publicListing, intent]) await loadFrom({ ...spec, seconds: 1 });

    const baseline = await load(health);
    const read = await load(publicListing);
    const heldBefore = (await listingCounters(env, listing.id)).quantity_held;
    const created = await load(intent);
    const held = (await listingCounters(env, listing.id)).quantity_held - heldBefore;
    const drops: (Measured & { checked: string })[] = [];
    for (let round = 0; round < DROP.rounds; round++)
      drops.push(await drop(env, standin, organizationId, admin.token, load, base));
    const median = [...drops].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(DROP.rounds / 2)];
    process.stdout.write(
      `${[
        line('baseline: GET /healthz', baseline),
        line('GET /v1/public/listings/{id}', read, baseline),
        line('POST /v1/public/purchase-intents, every one held', created, baseline),
        `  intents created: ${created.statuses['201'] ?? 0}, units held: ${held}, answers: ${JSON.stringify(created.statuses)}`,
        ...drops.map((d, i) =>
          line(`drop ${i + 1}: ${DROP.requests} creations, ${DROP.units} units`, d, baseline),
        ),
        ...(median === undefined
          ? []
          : [
              `  ${drops.map((d) => d.checked).join(' | ')}`,
              `drop of ${DROP.requests} creations (${DROP.connections} at a time) on ${DROP.units} units, median of ${DROP.rounds}: ${median.perSecond.toFixed(0)} intents/s, p99 ${median.p99Ms.toFixed(1)} ms  goal ≥ ${GOAL_PER_SECOND}/s  ${median.perSecond >= GOAL_PER_SECOND ? 'met' : 'NOT met'}`,
            ]),
      ].join('\n')}\n`,
    );
  } finally {
    await service?.stop();
    await env.close();
    await standin.close();
  }
}
