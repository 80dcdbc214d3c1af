import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Abi } from 'viem';
import { getPlatformContract } from '../src/chain/artifacts.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { type FlowTest, setupFlowTest } from '../test/chain/flow.ts';

const BULK_ITEMS = Number(process.env.BENCH_BULK_ITEMS ?? 100_000);
const LIST_ITEMS = Number(process.env.BENCH_LIST_ITEMS ?? 1_000_000);
const LIST_DEPTH = Number(process.env.BENCH_LIST_DEPTH ?? 900_000);
const LOCK_ITEMS = Number(process.env.BENCH_LOCK_ITEMS ?? 100_000);
const MINT_ITEMS = Number(process.env.BENCH_MINT_ITEMS ?? 10_000);
const SINGLE_MINT_ITEMS = Number(process.env.BENCH_SINGLE_MINT_ITEMS ?? 100);
const BULK_BATCH = 10_000;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/**
 * The catalog's hot paths, each against a baseline printed in the same run:
 * - bulk create through `POST /v1/items/bulk` against the same rows inserted directly with pg;
 * - a list page at depth 900,000 (reached through cursors) against the first page, in a
 *   1,000,000-item collection, both with `total_results`;
 * - locking 100,000 items by `collection_id` (items/s);
 * - minting 10,000 items through mint requests on a batch-mint contract against single mints:
 *   items/s and gas per item.
 */
export async function itemsBench(): Promise<void> {
  const flow = await setupFlowTest();
  try {
    const base = await flow.env.app.listen({ port: 0, host: '127.0.0.1' });
    const api = client(base, flow.admin.token);
    await bulkCreate(flow, api);
    await lists(flow, api);
    await lockAndMint(flow, api);
  } finally {
    await flow.close();
  }
}

type Api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<T>;

function client(base: string, token: string): Api {
  return async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : {}) as never;
  };
}

async function createCollection(
  api: Api,
  flow: FlowTest,
  name: string,
  deployment?: unknown,
): Promise<string> {
  const created = await api<{ id: string }>('POST', '/v1/collections', {
    name,
    ...(deployment === undefined ? {} : { deployment_request: deployment }),
  });
  if (deployment !== undefined) {
    await flow.until(async () => {
      const status = await api<{ status: string }>('GET', `/v1/collections/${created.id}/deployment-request`);
      if (status.status === 'FAILED') throw new Error(`deployment of ${name} failed`);
      return status.status === 'SUCCESS' ? true : undefined;
    }, `deployment of ${name}`);
  }
  return created.id;
}

const attributesOf = (i: number) => ({
  name: `Item ${i}`,
  rarity: ['common', 'rare', 'epic'][i % 3],
  level: i % 100,
});

async function bulkCreate(flow: FlowTest, api: Api): Promise<void> {
  const viaApi = await createCollection(api, flow, 'bench bulk (API)');
  const direct = await createCollection(api, flow, 'bench bulk (pg)');

  // Warm-up: JIT, validators, connections.
  await api('POST', '/v1/items/bulk', { items: [{ collection_id: viaApi, attributes: attributesOf(0) }] });

  const t0 = performance.now();
  for (let offset = 0; offset < BULK_ITEMS; offset += BULK_BATCH) {
    const count = Math.min(BULK_BATCH, BULK_ITEMS - offset);
    const items = Array.from({ length: count }, (_, i) => ({
      collection_id: viaApi,
      attributes: attributesOf(offset + i),
    }));
    await api('POST', '/v1/items/bulk', { items });
  }
  const apiSeconds = (performance.now() - t0) / 1000;

  const t1 = performance.now();
  await seedItems(flow, direct, BULK_ITEMS, attributesOf, BULK_BATCH);
  const pgSeconds = (performance.now() - t1) / 1000;
  const apiRate = BULK_ITEMS / apiSeconds;
  const pgRate = BULK_ITEMS / pgSeconds;
  print([
    `bulk create ${fmt(BULK_ITEMS)} items (batches of ${fmt(BULK_BATCH)})`,
    `  baseline: direct pg INSERT … unnest    ${fmt(pgRate)} items/s`,
    `  POST /v1/items/bulk (validated, HTTP)  ${fmt(apiRate)} items/s   ${(apiRate / pgRate).toFixed(2)}× baseline`,
  ]);
}

async function lists(flow: FlowTest, api: Api): Promise<void> {
  const collection = await createCollection(api, flow, 'bench list');
  const db = flow.env.database.db;
  // Seeded directly: the figure here is the list, not the insert.
  await seedItems(flow, collection, LIST_ITEMS, (n) => ({ n }));
  await sql`ANALYZE items`.execute(db);

  type Page = { results: unknown[]; cursor: string | null; total_results: number };
  const pagePath = (cursor?: string) =>
    `/v1/items?collection_id=${collection}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

  // Walk to the depth through cursors, 1,000 at a time (the medium limit).
  let cursor: string | null = null;
  let depth = 0;
  const walk0 = performance.now();
  while (depth < LIST_DEPTH) {
    const page: Page = await api<Page>(
      'GET',
      `/v1/items?collection_id=${collection}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    depth += page.results.length;
    cursor = page.cursor;
    if (!cursor) throw new Error(`the list ended at ${depth}`);
  }
  const walkSeconds = (performance.now() - walk0) / 1000;
  // The deep cursor continues with the same filters but another limit: take the next 100 with a
  // cursor issued for limit=100 by asking one page of 100 from it first.
  const deepCursor = cursor!;

  const sample = async (path: string) => {
    for (let i = 0; i < 3; i++) await api('GET', path);
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      const page = await api<Page>('GET', path);
      times.push(performance.now() - t);
      if (page.total_results !== LIST_ITEMS) throw new Error(`total_results ${page.total_results}`);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  };
  const first = await sample(pagePath());
  const deep = await sample(
    `/v1/items?collection_id=${collection}&limit=1000&cursor=${encodeURIComponent(deepCursor)}`,
  );
  const firstThousand = await sample(`/v1/items?collection_id=${collection}&limit=1000`);
  print([
    `list items of a ${fmt(LIST_ITEMS)}-item collection (with total_results; p50 of 30)`,
    `  baseline: first page, limit 100         ${first.toFixed(1)} ms`,
    `  first page, limit 1000                  ${firstThousand.toFixed(1)} ms   ${(firstThousand / first).toFixed(2)}× baseline`,
    `  page at depth ${fmt(depth)}, limit 1000   ${deep.toFixed(1)} ms   ${(deep / firstThousand).toFixed(2)}× the first page of 1000`,
    `  (walking ${fmt(depth)} items through ${fmt(depth / 1000)} cursors took ${walkSeconds.toFixed(1)} s)`,
  ]);
}

async function lockAndMint(flow: FlowTest, api: Api): Promise<void> {
  const db = flow.env.database.db;
  const erc721 = getPlatformContract('FlexibleERC721');
  const batch = await createCollection(api, flow, 'bench mint (batch)', {
    type: 'PLATFORM',
    network_id: flow.networkId,
    platform: { symbol: 'BMB', variant: 'FlexibleERC721' },
  });
  // The same contract deployed with an ABI that has no batch mint: one transaction per item.
  const singleAbi = (erc721.abi as Abi).filter(
    (f) => !(f.type === 'function' && (f.name === 'mintBatch' || f.name === 'mintBatchNoId')),
  );
  const single = await createCollection(api, flow, 'bench mint (single)', {
    type: 'CUSTOM',
    network_id: flow.networkId,
    custom: {
      abi: singleAbi,
      bytecode: erc721.bytecode,
      constructor_args: [
        'Single',
        'BMS',
        '',
        '',
        flow.wallet.address,
        '0',
        '0x0000000000000000000000000000000000000000',
        '0',
      ],
    },
  });

  // Lock: LOCK_ITEMS unlocked items in the batch collection, locked by collection_id.
  await seedItems(flow, batch, LOCK_ITEMS, (n) => ({ n }));
  const l0 = performance.now();
  const locked = await api<{ lock_outputs: unknown[] }>('POST', '/v1/items/lock', { collection_id: batch });
  const lockSeconds = (performance.now() - l0) / 1000;
  if (locked.lock_outputs.length !== LOCK_ITEMS) throw new Error(`locked ${locked.lock_outputs.length}`);

  // Single-mint collection: a few items, each its own transaction.
  await api('POST', '/v1/items/bulk', {
    items: Array.from({ length: SINGLE_MINT_ITEMS }, (_, i) => ({
      collection_id: single,
      attributes: { n: i },
    })),
  });
  await api('POST', '/v1/items/lock', { collection_id: single });

  const mint = async (collectionId: string, items: number) => {
    const t = performance.now();
    const transactions = new Set<string>();
    for (let minted = 0; minted < items; minted += 100) {
      const response = await api<{ mint_requests: { transaction_id: string }[] }>(
        'POST',
        '/v1/mint-requests',
        {
          to_address: flow.wallet.address,
          collection_id: collectionId,
        },
      );
      for (const r of response.mint_requests) transactions.add(r.transaction_id);
    }
    const rows = await flow.settled([...transactions], 600_000);
    const seconds = (performance.now() - t) / 1000;
    const failed = rows.filter((r) => r.on_chain_status !== 'SUCCESS');
    if (failed.length > 0)
      throw new Error(`${failed.length} mint transactions failed: ${failed[0]!.failure_reason}`);
    await flow.until(async () => {
      const row = await db
        .selectFrom('mint_requests')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('collection_id', '=', collectionId)
        .where('state', '=', 'COMPLETED')
        .executeTakeFirstOrThrow();
      return Number(row.n) >= items ? true : undefined;
    }, 'mint requests to complete');
    const gas = rows.reduce((sum, r) => sum + BigInt(r.gas_used ?? 0), 0n);
    return {
      seconds,
      perSecond: items / seconds,
      gasPerItem: Number(gas) / items,
      transactions: rows.length,
    };
  };
  const singles = await mint(single, SINGLE_MINT_ITEMS);
  const batched = await mint(batch, MINT_ITEMS);
  print([
    `lock ${fmt(LOCK_ITEMS)} items by collection_id: ${fmt(LOCK_ITEMS / lockSeconds)} items/s (${lockSeconds.toFixed(1)} s)`,
    `mint on anvil (0.2 s blocks), requests of 100 items by collection_id, queued to completed`,
    `  baseline: single mints, ${fmt(SINGLE_MINT_ITEMS)} items in ${singles.transactions} transactions   ${fmt(singles.perSecond, 1)} items/s   ${fmt(singles.gasPerItem)} gas/item`,
    `  batch mint, ${fmt(MINT_ITEMS)} items in ${batched.transactions} transactions   ${fmt(batched.perSecond, 1)} items/s (${(batched.perSecond / singles.perSecond).toFixed(2)}×)   ${fmt(batched.gasPerItem)} gas/item (${(batched.gasPerItem / singles.gasPerItem).toFixed(2)}×)`,
  ]);
}

/** Rows straight into `items` with pg: one statement per batch, arrays bound as four parameters. */
async function seedItems(
  flow: FlowTest,
  collectionId: string,
  count: number,
  attributes: (i: number) => Record<string, unknown>,
  batch = 50_000,
): Promise<void> {
  for (let offset = 0; offset < count; offset += batch) {
    const n = Math.min(batch, count - offset);
    const ids = Array.from({ length: n }, () => uuidv7());
    const docs = Array.from({ length: n }, (_, i) => JSON.stringify(attributes(offset + i)));
    await sql`
      INSERT INTO items (id, organization_id, collection_id, attributes)
      SELECT id, ${flow.organizationId}::uuid, ${collectionId}::uuid, attributes
      FROM unnest(${ids}::uuid[], ${docs}::jsonb[]) AS t(id, attributes)
    `.execute(flow.env.database.db);
  }
}

function print(lines: string[]): void {
  process.stdout.write(`${lines.join('\n')}\n`);
}
