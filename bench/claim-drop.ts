import { sql } from 'kysely';
import { platformContracts } from '../src/chain/artifacts.ts';
import { capabilitiesOf } from '../src/chain/capabilities.ts';
import { insertCollection } from '../test/factories.ts';
import type { TestEnv } from '../test/harness.ts';
import { createListing, listingCounters, randomAddress } from '../test/support/sales.ts';
import { insertItem } from '../test/support/token-requests.ts';
import type { LoadSpec, Measured } from './service.ts';
import { rssMb } from './service.ts';

/** The big drop of the scale issue: one ERC-1155 item of 10,000 units, free by email claim. */
const BIG_DROP = {
  units: Number(process.env.BENCH_CLAIM_DROP_UNITS ?? 10_000),
  extra: 500,
  connections: 256,
  /** The service's memory limit through the drop (MB). */
  rssGoalMb: 250,
};

/** What the big drop needs of the sales bench's set-up. */
export interface ClaimDropSetup {
  env: TestEnv;
  organizationId: string;
  token: string;
  base: string;
  /** The service's process, whose memory is sampled. */
  pid: number;
  /** Whether a worker runs in it (ROLE all): without one, nothing is mailed to wait for. */
  worker: boolean;
  load: (spec: LoadSpec) => Promise<Measured>;
}

/** One ERC-1155 item of `supply` units, on a collection of its own (at an address nobody calls). */
export async function erc1155Item(env: TestEnv, organizationId: string, supply: bigint) {
  const collection = await insertCollection(env.database.db, {
    organizationId,
    contractAddress: randomAddress(),
    tokenType: 'ERC1155',
    abi: [...platformContracts.FlexibleERC1155.abi],
    capabilities: capabilitiesOf(platformContracts.FlexibleERC1155.abi),
  });
  return insertItem(env.database.db, {
    collectionId: collection.id,
    organizationId,
    tokenId: 1n,
    maxSupply: supply,
  });
}

/** `work` with the resident memory of `pid` sampled every 20 ms meanwhile; answers its peak too. */
async function withPeakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = rssMb(pid);
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(pid));
  }, 20);
  try {
    const result = await work();
    peakMb = Math.max(peakMb, rssMb(pid));
    return { result, peakMb };
  } finally {
    clearInterval(timer);
  }
}

/** The drop's claims made and mailed so far. */
async function claimsMailed(env: TestEnv, itemId: string): Promise<{ claims: number; mailed: number }> {
  const { rows } = await sql<{ claims: string; mailed: string }>`
    SELECT count(*) AS claims, count(*) FILTER (WHERE o.status = 'SENT') AS mailed
    FROM email_claims c LEFT JOIN mail_outbox o ON o.id = c.mail_outbox_id
    WHERE c.item_id = ${itemId}`.execute(env.database.db);
  return { claims: Number(rows[0]!.claims), mailed: Number(rows[0]!.mailed) };
}

/** What must hold after the drop: each problem found. */
async function problemsOf(
  env: TestEnv,
  listingId: string,
  itemId: string,
  statuses: Record<string, number>,
): Promise<string[]> {
  const problems: string[] = [];
  if (statuses['201'] !== BIG_DROP.units) problems.push(`${statuses['201'] ?? 0} created`);
  if (statuses['422'] !== BIG_DROP.extra) problems.push(`answers ${JSON.stringify(statuses)}`);
  const { rows } = await sql<{ intents: string; buyers: string; confirmed: string }>`
    SELECT count(*) AS intents, count(DISTINCT lower(email)) AS buyers,
      count(*) FILTER (WHERE status = 'CONFIRMED') AS confirmed
    FROM purchase_intents WHERE listing_id = ${listingId}`.execute(env.database.db);
  const { intents, buyers, confirmed } = rows[0]!;
  if (Number(intents) !== BIG_DROP.units || Number(buyers) !== BIG_DROP.units)
    problems.push(`${intents} intents of ${buyers} buyers`);
  if (Number(confirmed) !== BIG_DROP.units) problems.push(`${confirmed} confirmed`);
  const counters = await listingCounters(env, listingId);
  if (counters.quantity_sold !== BIG_DROP.units || counters.quantity_held !== 0)
    problems.push(`sold ${counters.quantity_sold}, held ${counters.quantity_held}`);
  const { claims, mailed } = await claimsMailed(env, itemId);
  if (claims !== BIG_DROP.units || mailed !== BIG_DROP.units)
    problems.push(`${claims} claims, ${mailed} mailed`);
  return problems;
}

/**
 * A 10,000-unit drop: one ERC-1155 item of supply 10,000 listed free by EMAIL_CLAIM, 10,500
 * buyers at once (each its own email and client address, 256 connections). Exactly 10,000 hold a
 * unit, none twice, the rest are refused; the service's memory is sampled from the first request
 * until every claim of the drop is made and its mail sent (by the worker of the same process).
 */
export async function claimDrop(setup: ClaimDropSetup): Promise<string[]> {
  const { env, organizationId } = setup;
  const item = await erc1155Item(env, organizationId, BigInt(BIG_DROP.units));
  const listing = await createListing(env, setup.token, { item_id: item.id });
  const requests = BIG_DROP.units + BIG_DROP.extra;
  let drained = performance.now();
  const { result, peakMb } = await withPeakRss(setup.pid, async () => {
    const measured = await setup.load({
      url: `${setup.base}/v1/public/purchase-intents`,
      method: 'POST',
      headers: { 'x-forwarded-for': '{{ip}}' },
      body: JSON.stringify({
        listing_id: listing.id,
        quantity: 1,
        provider: 'EMAIL_CLAIM',
        buyer: { email: `big-${listing.id}-{{n}}@bench.example` },
      }),
      requests,
      connections: BIG_DROP.connections,
      expectStatus: [201, 422],
    });
    const answered = performance.now();
    process.stdout.write(
      `  (${BIG_DROP.units}-unit drop answered: ${measured.perSecond.toFixed(0)} intents/s, p99 ${measured.p99Ms.toFixed(0)} ms; waiting for its mail)\n`,
    );
    for (const deadline = Date.now() + (setup.worker ? 600_000 : 0); Date.now() < deadline; ) {
      const { claims, mailed } = await claimsMailed(env, item.id);
      if (claims >= BIG_DROP.units && mailed >= BIG_DROP.units) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    drained = performance.now() - answered;
    return measured;
  });
  const problems = await problemsOf(env, listing.id, item.id, result.statuses);
  return [
    `EMAIL_CLAIM drop of ${BIG_DROP.units} units, ${requests} buyers (${BIG_DROP.connections} at a time): ${result.perSecond.toFixed(0)} intents/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms; every claim mailed ${(drained / 1000).toFixed(1)} s after the last answer`,
    `  ${problems.length === 0 ? `${BIG_DROP.units} confirmed, one per buyer, each claim made and mailed; ${BIG_DROP.extra} refused 422 INSUFFICIENT_SUPPLY` : `WRONG: ${problems.join('; ')}`}`,
    `  service memory peak from the first request until the last mail: ${peakMb.toFixed(0)} MB  goal < ${BIG_DROP.rssGoalMb} MB  ${peakMb < BIG_DROP.rssGoalMb ? 'met' : 'NOT met'}`,
  ];
}
