import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baseline of the http bench, in its own process (`tsx bench/baseline-server.ts <database
 * url>`): a bare Fastify route that selects one item by primary key with pg and returns it as
 * JSON (and GET /cpu, the CPU time it has used). Prints its url on stdout once listening; stops when its stdin closes.
 */
const pool = new pg.Pool({ connectionString: process.argv[2], max: 10 });
const app = Fastify();
app.get<{ Params: { id: string } }>('/items/:id', async (request, reply) => {
  const { rows } = await pool.query('SELECT * FROM items WHERE id = $1', [request.params.id]);
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
  return rows[0];
});
// CPU time this process has used (µs), so the bench can divide it by the requests served.
app.get('/cpu', async () => {
  const { user, system } = process.cpuUsage();
  return { micros: user + system };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${url}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
