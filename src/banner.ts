import type { Config } from './lib/config.ts';
import type { RunningService } from './service.ts';

/**
 * What `npm start` prints once everything runs: where it listens and the URL a browser opens,
 * the dev chain and the test accounts a user may sign with, and the bootstrap admin.
 */
export function startBanner(config: Config, service: RunningService): string {
  const lines = [`token issuance service (${config.role}) started`];
  const port = service.url === undefined ? undefined : Number(new URL(service.url).port);
  const open = browserUrl(config, port);
  if (port !== undefined) {
    const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
    lines.push(`  listening on ${host}:${port}`, `  open ${open}  (API docs: ${open}/docs)`);
  }
  if (config.embedded) lines.push(`  embedded PostgreSQL data in ${config.dataDir}/postgres`);
  const chain = service.devChain;
  if (chain) {
    lines.push(`  dev chain (network 31337) at ${chain.rpcUrl}`);
    if (chain.portTaken !== undefined) {
      lines.push(
        `  dev chain: port ${chain.portTaken} is in use, so it took a free one; set DEV_CHAIN_PORT to keep one`,
      );
    }
    if (chain.userAccounts.length > 0) {
      lines.push(
        "  dev chain test accounts (anvil's default mnemonic: PUBLIC keys, never for real funds):",
        ...chain.userAccounts.map((a) => `    ${a.address}  private key ${a.privateKey}`),
      );
    }
  }
  if (service.bootstrap) {
    lines.push(`  bootstrap platform admin: ${service.bootstrap.email}`);
    if (service.bootstrap.generatedPassword) {
      lines.push(`  bootstrap password (shown once): ${service.bootstrap.generatedPassword}`);
    }
  }
  if (!config.smtpUrl) lines.push(`  outgoing mail kept in the local mailbox: GET ${open}/v1/mailbox`);
  return `${lines.join('\n')}\n`;
}

/** PUBLIC_BASE_URL, or http://localhost with the port actually bound (PORT=0 binds any free one). */
function browserUrl(config: Config, port: number | undefined): string {
  const derived = `http://localhost:${config.http.port}`;
  if (port === undefined || config.http.publicBaseUrl !== derived) return config.http.publicBaseUrl;
  return `http://localhost:${port}`;
}
