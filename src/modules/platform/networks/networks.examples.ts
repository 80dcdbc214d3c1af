import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, page } from '../../../http/openapi-story.ts';

const devChain = {
  id: 31337,
  name: 'Dev chain (anvil)',
  enabled: true,
  testnet: true,
  payment_tokens: [],
  config: {
    autoDeploy: true,
    autoFundAmount: '1000000000000000000',
    confirmations: 1,
    eip155: true,
    gasStrategy: { type: 'AUTO', maxFeePerGas: null, maxPriorityFeePerGas: null, bumpPercent: 13 },
    maxConcurrentTxs: 64,
    batch: { maxItems: 100, maxGas: 12_000_000, windowMs: 1000 },
    poa: false,
    txResubmitBlockCount: 5,
    url: 'http://127.0.0.1:8545',
  },
  created_at: '2026-11-20T12:14:14.463Z',
};

const usdc = {
  address: address.usdc,
  symbol: 'USDC',
  decimals: 6,
  network_id: 8453,
  eth: false,
  eur_stablecoin: false,
  usd_stablecoin: true,
};

const baseNetwork = {
  id: 8453,
  name: 'Base',
  enabled: true,
  testnet: false,
  payment_tokens: [usdc],
  config: {
    autoDeploy: true,
    autoFundAmount: '5000000000000000',
    confirmations: 3,
    eip155: true,
    gasStrategy: { type: 'EIP1559', maxFeePerGas: null, maxPriorityFeePerGas: '1000000', bumpPercent: 15 },
    maxConcurrentTxs: 32,
    batch: { maxItems: 200, maxGas: 15_000_000, windowMs: 2000 },
    poa: false,
    txResubmitBlockCount: 10,
    url: 'https://mainnet.base.org',
  },
  created_at: '2026-11-22T17:17:21.099Z',
};

/** The chains the service runs on: the dev chain, and Base added with USDC as a payment token. */
export const networksExamples: Readonly<Record<string, OperationExample>> = {
  listNetworks: { response: page([devChain]) },
  createNetwork: {
    request: {
      id: 8453,
      name: 'Base',
      enabled: true,
      testnet: false,
      config: {
        url: 'https://mainnet.base.org',
        confirmations: 3,
        autoFundAmount: '5000000000000000',
        gasStrategy: { type: 'EIP1559', maxPriorityFeePerGas: '1000000', bumpPercent: 15 },
        maxConcurrentTxs: 32,
        batch: { maxItems: 200, windowMs: 2000 },
        txResubmitBlockCount: 10,
      },
      payment_tokens: [{ address: address.usdc, usd_stablecoin: true }],
    },
    response: baseNetwork,
  },
  getNetwork: { params: { network_id: 31337 }, response: devChain },
  editNetwork: {
    params: { network_id: 31337 },
    request: { config: { confirmations: 2 } },
    response: { ...devChain, config: { ...devChain.config, confirmations: 2 } },
  },
  listPaymentTokens: { params: { network_id: 8453 }, response: page([usdc]) },
  addPaymentToken: {
    params: { network_id: 8453 },
    request: { address: address.usdc, usd_stablecoin: true },
    response: usdc,
  },
};
