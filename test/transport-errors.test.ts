import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/types.ts';
import { ErrorBody, type ErrorCode } from '../src/lib/errors.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createServiceContext } from '../src/wiring/ports.ts';
import { setupTest, type TestEnv, testConfig } from './harness.ts';

/**
 * What Node's HTTP server and Fastify answer on their own, before any route (the parser's
 * 400/414/431, request timeouts, body limits, media types, shutting down): the API's error body
 * (docs/api.md#errors), never the framework's `{error, message, statusCode}`. Over a real socket: the
 * parser-level answers never reach `inject`.
 */

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes, reads until the server closes the socket (or `waitMs` passes). */
function rawExchange(port: number, chunks: (string | Buffer)[], waitMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, waitMs);
    socket.on('data', (data) => {
      received += data.toString('latin1');
    });
    socket.on('error', (error) => {
      // The server may reset after answering (it destroys the socket of a parse error).
      if (received) return;
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end > 0, `no end of headers in ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}

function assertRawError(response: RawResponse | undefined, status: number, code: ErrorCode, what: string) {
  assert.ok(response, `${what}: no response`);
  assert.equal(response.status, status, `${what}: ${response.body}`);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, what);
  const body = JSON.parse(response.body) as unknown;
  assert.ok(Value.Check(ErrorBody, body), `${what}: not the error body: ${response.body}`);
  const error = (body as ErrorBody).error;
  assert.equal(error.code, code, what);
  assert.ok(error.detail.length > 0, what);
  assert.equal(error.request_id, response.headers['x-request-id'], `${what}: request_id is x-request-id`);
}

async function exchange(port: number, chunks: (string | Buffer)[], waitMs?: number): Promise<RawResponse> {
  const responses = parseResponses(await rawExchange(port, chunks, waitMs));
  assert.equal(responses.length, 1, 'one response');
  return responses[0]!;
}

describe('answers of the HTTP server and the framework, over a socket', () => {
  let env: TestEnv;
  let port: number;
  before(async () => {
    env = await setupTest();
    await env.app.listen({ port: 0, host: '127.0.0.1' });
    port = (env.app.server.address() as AddressInfo).port;
  });
  after(() => env.close());

  it('answers a URL too long for the parser with 414 and the error body', async () => {
    const response = await exchange(port, [
      `GET /v1/users?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]);
    assertRawError(response, 414, 'VALIDATION_FAILED', 'long URL');
  });

  it('answers headers too large with 431 and the error body', async () => {
    const response = await exchange(port, [
      `GET /v1/users HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    ]);
    assertRawError(response, 431, 'VALIDATION_FAILED', 'large header');
  });

  it('answers bytes that are not HTTP with 400 and the error body', async () => {
    for (const garbage of [
      'HELLO\r\n\r\n',
      'GET / HTTP/1.1\r\nHost x\r\n\r\n',
      'GET /\u0001 HTTP/1.1\r\n\r\n',
    ]) {
      assertRawError(await exchange(port, [garbage]), 400, 'VALIDATION_FAILED', JSON.stringify(garbage));
    }
  });

  it('answers a body over the limit (declared or streamed) and another media type with the error body', async () => {
    const declared = await exchange(port, [
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n{',
    ]);
    assertRawError(declared, 400, 'VALIDATION_FAILED', 'declared length over the limit');
    const chunk = `${(2 * 1024 * 1024).toString(16)}\r\n${'x'.repeat(2 * 1024 * 1024)}\r\n`;
    const streamed = await exchange(port, [
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
      chunk,
      '0\r\n\r\n',
    ]);
    assertRawError(streamed, 400, 'VALIDATION_FAILED', 'streamed body over the limit');
    const text = await exchange(port, [
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi',
    ]);
    assertRawError(text, 400, 'VALIDATION_FAILED', 'text/plain body');
  });

  it('answers 503 UNAVAILABLE with the error body to a request that arrives while the service shuts down', async () => {
    // Its own instance: this one is closed by the test.
    const ctx = createServiceContext(testConfig(env.databaseUrl), env.database.db, createLogger('silent'));
    const app: App = await buildApp(ctx);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const own = (app.server.address() as AddressInfo).port;
    const body = '{"email":"a@example.test","password":"wrong password"}';
    const socket = net.connect(own, '127.0.0.1');
    let received = '';
    socket.on('data', (data) => {
      received += data.toString('latin1');
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    // A request in flight (its body half sent) keeps the connection busy while close() begins;
    // the next request on that connection arrives during the shutdown.
    socket.write(
      `POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const closing = app.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(`${body.slice(10)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);
    socket.destroy();
    await closing;
    await ctx.mail.close();
    const responses = parseResponses(received);
    assert.equal(responses.length, 2, received);
    assert.equal(responses[0]!.status, 401, 'the request in flight is answered');
    assertRawError(responses[1], 503, 'UNAVAILABLE', 'request during shutdown');
  });

  it('answers a request not received within the request timeout with 408 and the error body', async () => {
    const ctx = createServiceContext(testConfig(env.databaseUrl), env.database.db, createLogger('silent'));
    const app = await buildApp(ctx, { requestTimeoutMs: 300, connectionsCheckingIntervalMs: 50 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const own = (app.server.address() as AddressInfo).port;
    try {
      // Headers sent, the body never completes (a slow or stalled client).
      const slowBody = await exchange(
        own,
        [
          'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
        ],
        3000,
      );
      assertRawError(slowBody, 408, 'VALIDATION_FAILED', 'stalled body');
      // Headers that never end.
      const slowHeaders = await exchange(own, ['GET /v1/users HTTP/1.1\r\nHost: x\r\n'], 3000);
      assertRawError(slowHeaders, 408, 'VALIDATION_FAILED', 'stalled headers');
    } finally {
      await app.close();
      await ctx.mail.close();
    }
  });
});
