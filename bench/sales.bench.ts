import { type Address, zeroAddress } from 'viem';
import { platformContracts } from '../src/chain/artifacts.ts';
import { capabilitiesOf } from '../src/chain/capabilities.ts';
import { organizationWalletOf } from '../src/modules/platform/wallets/wallets.service.ts';
import { expireDueIntents } from '../src/modules/sales/purchase-intents/purchase-payments.service.ts';
import { startTestChain } from '../test/chain/anvil.ts';
import { insertCollection } from '../test/factories.ts';
import { setupTest, type TestEnv } from '../test/harness.ts';
import { CHAIN_ID, networkConfig } from '../test/relayer/harness.ts';
import { createPlatformAccount, PLATFORM_KEYS, setUpCardProvider } from '../test/support/card-provider.ts';
import { createListing, listingCounters, randomAddress } from '../test/support/sales.ts';
import { type StripeStandin, startStripeStandin } from '../test/support/stripe-standin.ts';
import { insertItems } from '../test/support/token-requests.ts';
import { claimDrop, erc1155Item } from './claim-drop.ts';
import { buildIfStale, type LoadSpec, loadFrom, type Measured, measure, startService } from './service.ts';

const SECONDS = Number(process.env.BENCH_SALES_SECONDS ?? 5);
/** The service's role: `npm start`'s one process by default; BENCH_ROLE=api leaves its worker out. */
const ROLE = process.env.BENCH_ROLE ?? 'all';

/** The figure's goal, from the sales issue: intents answered per second. */
const GOAL_PER_SECOND = 1000;
const DROP = {
  units: 100,
  requests: 2000,
  connections: 256,
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
 * Intents of one unit of the listing through `provider`, each for a buyer of its own (`{{n}}`,
 * `{{address}}`) from a client address of its own (`{{ip}}`, through the proxy the service
 * trusts), as a drop's buyers come.
 */
function intentLoad(
  base: string,
  listingId: string,
  buyers: string,
  provider: DropProvider = 'CARD_PROVIDER',
): LoadSpec {
  return {
    url: `${base}/v1/public/purchase-intents`,
    method: 'POST',
    headers: { 'x-forwarded-for': '{{ip}}' },
    body: JSON.stringify({
      listing_id: listingId,
      quantity: 1,
      provider,
      buyer:
        provider === 'MINT_VOUCHER'
          ? { eth_address: '{{address}}' }
          : { email: `${buyers}-{{n}}@bench.example` },
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

/** The providers a drop is measured with. */
type DropProvider = 'CARD_PROVIDER' | 'MINT_VOUCHER' | 'EMAIL_CLAIM';

/** What a drop needs of the bench's set-up. */
interface DropSetup {
  env: TestEnv;
  standin: StripeStandin;
  organizationId: string;
  token: string;
  /** A SignatureERC721 contract on the bench's chain, signed for by the organization's wallet. */
  voucherContract: Address;
  load: (spec: LoadSpec) => Promise<Measured>;
  base: string;
}

/** The drop's listing of `DROP.units` ERC-721 items, selling through `provider`. */
async function dropListing(setup: DropSetup, provider: DropProvider) {
  const { env, organizationId, token } = setup;
  const collection =
    provider === 'MINT_VOUCHER'
      ? await insertCollection(env.database.db, {
          organizationId,
          contractAddress: setup.voucherContract,
          abi: [...platformContracts.SignatureERC721.abi],
          capabilities: capabilitiesOf(platformContracts.SignatureERC721.abi),
        })
      : await insertCollection(env.database.db, { organizationId, deployedOn: 'FlexibleERC721' });
  await insertItems(env.database.db, DROP.units, {
    collectionId: collection.id,
    organizationId,
    firstTokenId: 1n,
  });
  const selector = { collection_id: collection.id };
  if (provider === 'CARD_PROVIDER') return cardListing(env, token, selector);
  return createListing(env, token, {
    ...selector,
    ...(provider === 'MINT_VOUCHER'
      ? { currency: 'ETH', price: '1000000000000000', payment_providers: ['MINT_VOUCHER'] }
      : {}),
  });
}

/** What must hold after a drop beyond its answers, by provider; each problem found. */
async function dropProblems(
  setup: DropSetup,
  provider: DropProvider,
  listingId: string,
  sessionsBefore: number,
) {
  const { env, standin } = setup;
  const problems: string[] = [];
  const intents = await env.database.db
    .selectFrom('purchase_intents')
    .select(['status', 'card_provider_payment_intent_id', 'data'])
    .where('listing_id', '=', listingId)
    .execute();
  if (intents.length !== DROP.units) problems.push(`${intents.length} intents stored`);
  const counters = await listingCounters(env, listingId);
  if (provider === 'CARD_PROVIDER') {
    if (intents.filter((i) => i.card_provider_payment_intent_id !== null).length !== DROP.units)
      problems.push('intents without their PaymentIntent');
    if (standin.paymentIntents.size - sessionsBefore !== DROP.units)
      problems.push(`${standin.paymentIntents.size - sessionsBefore} PaymentIntents at the provider`);
    if (counters.quantity_held !== DROP.units) problems.push('held counter wrong');
  } else if (provider === 'MINT_VOUCHER') {
    const vouchers = await env.database.db
      .selectFrom('mint_vouchers')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('holder_id', 'in', (eb) =>
        eb.selectFrom('purchase_intents').select('id').where('listing_id', '=', listingId),
      )
      .where('status', '=', 'PENDING')
      .executeTakeFirstOrThrow();
    if (Number(vouchers.count) !== DROP.units) problems.push(`${vouchers.count} vouchers signed`);
    if (counters.quantity_held !== DROP.units) problems.push('held counter wrong');
  } else {
    if (intents.some((i) => i.status !== 'CONFIRMED')) problems.push('intents not CONFIRMED');
    if (counters.quantity_sold !== DROP.units) problems.push('sold counter wrong');
  }
  return problems;
}

/**
 * A drop: `DROP.requests` creations at once (`DROP.connections` at a time) against a collection
 * listing of `DROP.units` ERC-721 items selling through `provider`, each for a new buyer. Checks
 * what must hold (exactly `units` held, each with its PaymentIntent at the provider, its signed
 * voucher or its confirmation; every other creation 422 INSUFFICIENT_SUPPLY; a card drop's holds
 * all freed by the expiry, as the worker's sweep does it) and answers the load's figures.
 */
async function drop(setup: DropSetup, provider: DropProvider): Promise<Measured & { checked: string }> {
  const { env, standin } = setup;
  const listing = await dropListing(setup, provider);
  const sessionsBefore = standin.paymentIntents.size;
  const result = await setup.load({
    ...intentLoad(setup.base, listing.id, `drop-${listing.id}`, provider),
    requests: DROP.requests,
    connections: DROP.connections,
    expectStatus: [201, 422],
  });
  const held = result.statuses['201'] ?? 0;
  const problems = await dropProblems(setup, provider, listing.id, sessionsBefore);
  if (held !== DROP.units) problems.push(`${held} created, not ${DROP.units}`);
  if ((result.statuses['422'] ?? 0) !== DROP.requests - DROP.units)
    problems.push(`answers ${JSON.stringify(result.statuses)}`);
  if (provider === 'CARD_PROVIDER') {
    await env.database.db
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('listing_id', '=', listing.id)
      .execute();
    await expireDueIntents(env.database.db, env.ctx, DROP.requests);
    if ((await listingCounters(env, listing.id)).quantity_held !== 0)
      problems.push('holds left after expiry');
  }
  const kept = {
    CARD_PROVIDER: 'held',
    MINT_VOUCHER: 'held with a signed voucher',
    EMAIL_CLAIM: 'confirmed',
  }[provider];
  return {
    ...result,
    checked:
      problems.length === 0
        ? `${DROP.units} ${kept}, ${DROP.requests - DROP.units} refused 422 INSUFFICIENT_SUPPLY${provider === 'CARD_PROVIDER' ? `, all ${DROP.units} free again after expiry` : ''}`
        : `WRONG: ${problems.join('; ')}`,
  };
}

/** The drop of `provider` `DROP.rounds` times: its lines, the median's with its goal. */
async function dropRounds(setup: DropSetup, provider: DropProvider, baseline: Measured): Promise<string[]> {
  const drops: (Measured & { checked: string })[] = [];
  for (let round = 0; round < DROP.rounds; round++) drops.push(await drop(setup, provider));
  const median = [...drops].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(DROP.rounds / 2)];
  return [
    ...drops.map((d, i) =>
      line(`${provider} drop ${i + 1}: ${DROP.requests} creations, ${DROP.units} units`, d, baseline),
    ),
    ...(median === undefined
      ? []
      : [
          `  ${drops.map((d) => d.checked).join(' | ')}`,
          `${provider} drop of ${DROP.requests} creations (${DROP.connections} at a time) on ${DROP.units} units, median of ${DROP.rounds}: ${median.perSecond.toFixed(0)} intents/s, p99 ${median.p99Ms.toFixed(1)} ms  goal ≥ ${GOAL_PER_SECOND}/s  ${median.perSecond >= GOAL_PER_SECOND ? 'met' : 'NOT met'}`,
        ]),
  ];
}

/** The drops measured (BENCH_SALES_PROVIDERS, comma-separated; all three by default). */
const DROP_PROVIDERS = (process.env.BENCH_SALES_PROVIDERS ?? 'CARD_PROVIDER,MINT_VOUCHER,EMAIL_CLAIM')
  .split(',')
  .filter(Boolean) as DropProvider[];

/**
 * Purchase intent creation (POST /v1/public/purchase-intents: the hold and the intent in one
 * statement, then the PaymentIntent opened at the card provider and stored) against the service
 * started as production runs it (bench/service.ts) in `npm start`'s one process (ROLE all: its
 * worker and relayer run beside the API), its card provider a Stripe stand-in reached
 * through the real SDK (STRIPE_API_BASE; the stand-in runs in this process, the load in another),
 * its network an anvil dev chain. Two baselines from the same service in the same run: GET
 * /healthz (the HTTP stack alone) and the public listing read (one indexed SELECT). Figures: every
 * intent held (an ERC-1155 item listed with a billion units), and the drop of the sales issue,
 * with its checks, by card, by mint voucher (each buyer signed a voucher of its own, read from
 * the chain) and by email claim; then the 10,000-unit email claim drop (bench/claim-drop.ts;
 * BENCH_CLAIM_DROP=0 leaves it out).
 */
export async function salesBench(): Promise<void> {
  buildIfStale();
  const standin = await startStripeStandin({
    secretKeys: [PLATFORM_KEYS.secretKey],
    publishableKeys: [PLATFORM_KEYS.publishableKey],
  });
  const env = await setupTest({ STRIPE_API_BASE: standin.url });
  const chain = await startTestChain();
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    await env.insertNetwork(CHAIN_ID, networkConfig(chain.dev.rpcUrl), 'anvil');
    const { admin, organizationId } = await env.createTenant();
    await env.database.db
      .updateTable('organizations')
      .set({ payout_address: randomAddress() })
      .where('id', '=', organizationId)
      .execute();
    const wallet = await organizationWalletOf(env.database.db, organizationId);
    const voucherContract = await chain.deploy(
      chain.wallet(0),
      platformContracts.SignatureERC721 as unknown as typeof platformContracts.FlexibleERC721,
      ['Bench', 'BNCH', 'https://meta.test/', '', wallet.address as Address, 0n, zeroAddress, 0n],
    );
    const platformId = await createPlatformAccount(env);
    await setUpCardProvider(env, standin, organizationId, admin.token, platformId);
    const item = await erc1155Item(env, organizationId, 1_000_000_000n);
    const listing = await cardListing(env, admin.token, { item_id: item.id });
    service = await startService(env.databaseUrl, {
      // As `npm start` runs it: one process with its worker and relayer.
      env: { STRIPE_API_BASE: standin.url, TRUST_PROXY: 'true', ROLE },
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
    const setup: DropSetup = {
      env,
      standin,
      organizationId,
      token: admin.token,
      voucherContract,
      load,
      base,
    };
    const lines = [
      line('baseline: GET /healthz', baseline),
      line('GET /v1/public/listings/{id}', read, baseline),
      line('POST /v1/public/purchase-intents, every one held', created, baseline),
      `  intents created: ${created.statuses['201'] ?? 0}, units held: ${held}, answers: ${JSON.stringify(created.statuses)}`,
    ];
    for (const provider of DROP_PROVIDERS) lines.push(...(await dropRounds(setup, provider, baseline)));
    if (process.env.BENCH_CLAIM_DROP !== '0')
      lines.push(...(await claimDrop({ ...setup, pid, worker: ROLE === 'all' })));
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await service?.stop();
    await chain.dev.stop();
    await env.close();
    await standin.close();
  }
}
