import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baseline of the http bench, in its own process (`tsx bench/baseline-server.ts <database
 * url>`): bare Fastify routes over pg with the service's queries and no more, answering JSON.
 * Prints its url on stdout once listening; stops when its stdin closes. The bench reads its CPU
 * time and memory from /proc, as it does the service's.
 */
const pool = new pg.Pool({ connectionString: process.argv[2], max: 10 });
const app = Fastify();

/** One item by primary key. */
app.get<{ Params: { id: string } }>('/items/:id', async (request, reply) => {
  const { rows } = await pool.query('SELECT * FROM items WHERE id = $1', [request.params.id]);
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
  return rows[0];
});

/**
 * A collection's first page, as the service's GET /v1/items runs it (items.repository.ts
 * listItems through http/pagination.ts): the keyset query for limit + 1 rows in (created_at, id)
 * order beside the collection's kept counter for the total.
 */
app.get<{ Querystring: { collection_id: string; limit?: string } }>('/items', async (request) => {
  const limit = Number(request.query.limit ?? 20);
  const [page, count] = await Promise.all([
    pool.query(
      'SELECT * FROM items WHERE collection_id = $1 ORDER BY items.created_at ASC, items.id ASC LIMIT $2',
      [request.query.collection_id, limit + 1],
    ),
    pool.query('SELECT item_count, locked_item_count FROM collections WHERE id = $1', [
      request.query.collection_id,
    ]),
  ]);
  const hasMore = page.rows.length > limit;
  const results = hasMore ? page.rows.slice(0, limit) : page.rows;
  const last = results.at(-1);
  return {
    results,
    cursor: hasMore
      ? Buffer.from(JSON.stringify({ v: last.created_at, i: last.id })).toString('base64url')
      : null,
    has_more: hasMore,
    total_results: Number(count.rows[0]?.item_count ?? 0),
  };
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${url}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
