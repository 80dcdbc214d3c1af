import { type ChainClient, createChainClient } from './rpc.ts';

/** What a client is made for: a registered network (its chain id) and the node it points at. */
export interface NetworkEndpoint {
  readonly id: number;
  readonly url: string;
}

/**
 * One ChainClient per network, reused across requests and jobs so connections to the node are
 * kept alive. The cache is keyed by network id and url: when a network's url changes (PATCH
 * /v1/networks/{id}), the next call builds a client for the new node and drops the old one, so
 * no instance keeps talking to a node the network no longer points at. Holds no state that
 * another instance would need to see: every instance builds its own clients from the database.
 * One per process, in the AppContext (src/context.ts).
 */
export interface ChainClients {
  forNetwork(network: NetworkEndpoint): ChainClient;
}

export function createChainClients(options: { timeoutMs?: number } = {}): ChainClients {
  const clients = new Map<number, ChainClient>();
  return {
    forNetwork({ id, url }) {
      const cached = clients.get(id);
      if (cached?.url === url) return cached;
      const client = createChainClient(
        url,
        options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
      );
      clients.set(id, client);
      return client;
    },
  };
}
