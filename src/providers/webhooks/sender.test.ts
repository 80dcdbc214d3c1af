import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { isPrivateAddress } from './private-addresses.ts';
import { createWebhookSender, MAX_RESPONSE_BYTES } from './sender.ts';

describe('private addresses', () => {
  it('counts loopback, RFC 1918, link-local, CGNAT, unique-local, IPv4-mapped, 0.0.0.0 and metadata as private', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.0.1',
      '169.254.169.254',
      '169.254.0.1',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:8.8.8.8',
      '64:ff9b::a00:1',
      'not an address',
    ])
      assert.equal(isPrivateAddress(address), true, address);
  });

  it('lets public addresses through', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
    ])
      assert.equal(isPrivateAddress(address), false, address);
  });
});

describe('the webhook sender', () => {
  it('reads at most 64 KB of an answer and does not wait for the rest', async () => {
    let written = 0;
    const server = createServer((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // An answer that never ends.
      const pump = () => {
        while (written < 100 * 1024 * 1024 && response.write(chunk)) written += chunk.length;
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sender = createWebhookSender({ allowPrivateUrls: true, timeoutMs: 5_000 });
    const started = Date.now();
    const response = await sender.post({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}' });
    assert.deepEqual(response, { ok: true, status: 200 });
    assert.ok(Date.now() - started < 2_000);
    assert.ok(written < 100 * 1024 * 1024, 'the sender hung up');
    assert.ok(MAX_RESPONSE_BYTES === 64 * 1024);
    server.closeAllConnections();
    server.close();
  });

  it('refuses a URL with credentials, another scheme, or http when private URLs are not allowed', async () => {
    const strict = createWebhookSender({
      allowPrivateUrls: false,
      resolve: async () => [{ address: '93.184.216.34', family: 4 }],
    });
    assert.match((await strict.checkUrl('http://hooks.example.com/'))!, /https/);
    assert.match((await strict.checkUrl('https://u:p@hooks.example.com/'))!, /credentials/);
    assert.match((await strict.checkUrl('gopher://hooks.example.com/'))!, /https/);
    assert.equal(await strict.checkUrl('https://hooks.example.com/x?y=1'), undefined);
  });

  it('connects over TLS to the checked address, sending the URL host as SNI and checking the certificate against it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tis-webhook-tls-'));
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=hooks.example.test'],
        ...['-addext', 'subjectAltName=DNS:hooks.example.test'],
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(certFile, 'utf8');
    const names: (string | false | null)[] = [];
    const hosts: (string | undefined)[] = [];
    const server = createHttpsServer({ cert, key: readFileSync(keyFile, 'utf8') }, (request, response) => {
      names.push((request.socket as TLSSocket).servername);
      hosts.push(request.headers.host);
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const sender = createWebhookSender({
        allowPrivateUrls: true,
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        extraCa: cert,
      });
      const ok = await sender.post({ url: `https://hooks.example.test:${port}/in`, headers: {}, body: '{}' });
      assert.deepEqual(ok, { ok: true, status: 200 });
      assert.deepEqual(names, ['hooks.example.test']);
      assert.deepEqual(hosts, [`hooks.example.test:${port}`]);
      // The same address under another name: the certificate does not match it, nothing is sent.
      const other = createWebhookSender({
        allowPrivateUrls: true,
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        extraCa: cert,
      });
      const refused = await other.post({
        url: `https://other.example.test:${port}/in`,
        headers: {},
        body: '{}',
      });
      assert.equal(refused.ok, false);
      if (!refused.ok) assert.match(refused.error, /altnames|certificate|ERR_TLS/i);
      assert.equal(names.length, 1);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
