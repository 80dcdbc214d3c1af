import Fastify from 'fastify';
import { setupTest } from '../test/harness.ts';
import { load, report } from './load.ts';

/**
 * The authenticated request path against a bare Fastify route served by the same process on
 * the same machine, so the ratio shows what authentication, validation and SQL cost.
 */
export async function httpBench(): Promise<void> {
  const baselineApp = Fastify();
  baselineApp.get('/ping', async () => ({ ok: true }));
  const baselineUrl = await baselineApp.listen({ port: 0, host: '127.0.0.1' });

  const env = await setupTest();
  const url = await env.app.listen({ port: 0, host: '127.0.0.1' });
  const key = (
    await env.call('POST', '/v1/api-keys', { token: env.platformAdmin.token, body: { name: 'bench' } })
  ).json().key as string;
  for (let i = 0; i < 50; i++) await env.createOrganization();

  // Warm-up: JIT and connection pools.
  await load(`${baselineUrl}/ping`, { seconds: 1 });
  await load(`${url}/v1/me`, { seconds: 1, headers: { 'x-api-key': key } });

  const baseline = await load(`${baselineUrl}/ping`, {});
  const lines = [report('baseline: bare Fastify GET /ping', baseline)];
  lines.push(report('GET /healthz (full app, no auth)', await load(`${url}/healthz`, {}), baseline));
  lines.push(
    report('GET /v1/me (API key)', await load(`${url}/v1/me`, { headers: { 'x-api-key': key } }), baseline),
  );
  lines.push(
    report(
      'GET /v1/organizations?limit=20 (API key)',
      await load(`${url}/v1/organizations?limit=20`, { headers: { 'x-api-key': key } }),
      baseline,
    ),
  );
  lines.push(
    report(
      'GET /v1/me (access token)',
      await load(`${url}/v1/me`, { headers: { authorization: `Bearer ${env.platformAdmin.token}` } }),
      baseline,
    ),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  await baselineApp.close();
  await env.close();
}
