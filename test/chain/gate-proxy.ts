import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call as the proxy saw it. */
export interface SeenCall {
  method: string;
  params: unknown[];
}

/**
 * A JSON-RPC proxy in front of a local node that holds the calls a test chooses until it opens
 * the gate: a node as slow as the test wants, without a clock. `held` lists the calls waiting,
 * so a test can wait until the service has asked something (and assert what else happened
 * meanwhile) before it lets the answers through. Loopback only.
 */
export interface GateProxy {
  readonly url: string;
  /** Calls waiting behind the closed gate, in arrival order. */
  readonly held: readonly SeenCall[];
  /** From now on, calls for which `which` is true wait until `open()`. */
  close(which: (call: SeenCall) => boolean): void;
  /** Lets every held call through, and the calls after it. */
  open(): void;
  stop(): Promise<void>;
}

export async function startGateProxy(target: string): Promise<GateProxy> {
  const held: SeenCall[] = [];
  let holds: ((call: SeenCall) => boolean) | undefined;
  let waiting: (() => void)[] = [];
  const read = async (request: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of request) text += chunk;
    return text;
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await read(request);
      const parsed = JSON.parse(body) as SeenCall | SeenCall[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      const matching = holds === undefined ? [] : calls.filter((call) => holds!(call));
      if (matching.length > 0) {
        held.push(...matching);
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      const answer = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(await answer.text());
    })().catch(() => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const open = () => {
    holds = undefined;
    const released = waiting;
    waiting = [];
    for (const resolve of released) resolve();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    close(which) {
      holds = which;
    },
    open,
    async stop() {
      open();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
