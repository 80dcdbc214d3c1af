import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, page } from '../../../http/openapi-story.ts';

const CAPABILITIES = [
  'ERC721',
  'ADMIN_MINT_SINGLE',
  'ADMIN_MINT_SINGLE_URI',
  'ADMIN_MINT_BATCH',
  'ADMIN_MINT_MULTIPLE_NO_ID',
  'ERC2981',
  'CONTRACT_ROYALTY',
  'PER_TOKEN_ROYALTY',
  'CONTRACT_URI',
  'SET_BASE_URI',
  'SET_CONTRACT_URI',
  'BURN_TOKEN',
  'MAX_SUPPLY',
  'OZ_ACCESS_CONTROL',
];

const deploymentRequest = {
  type: 'PLATFORM',
  network_id: 31337,
  token_id_assignment_strategy: 'AUTOMATIC',
  platform: { symbol: 'NWG', variant: 'FlexibleERC721', owner: address.payout },
};

const collection = {
  id: ids.collection,
  organization_id: ids.organization,
  name: 'Northwind Genesis',
  default_item_type_id: ids.itemType,
  image_url: 'https://cdn.northwind.example/genesis/cover.png',
  reveal_strategy: 'INSTANT',
  preview_metadata: null,
  editable_metadata: true,
  reveal_hidden: false,
  functions_enabled: false,
  royalty_info: { receiver: address.payout, amount_bps: 500 },
  deployment: {
    type: 'PLATFORM',
    status: 'SUCCESS',
    address: address.contract,
    capabilities: CAPABILITIES,
    network_id: 31337,
    symbol: 'NWG',
    token_id_assignment_strategy: 'AUTOMATIC',
    token_type: 'ERC721',
    transaction_id: ids.deployTransaction,
    failure_reason: null,
  },
  created_at: '2026-11-21T03:46:46.096Z',
  updated_at: '2026-11-22T07:58:04.512Z',
};

const pendingCollection = {
  ...collection,
  deployment: { ...collection.deployment, status: 'PENDING', address: null, capabilities: [] },
  updated_at: '2026-11-21T03:46:46.096Z',
};

/** Collections and deployments: Northwind Genesis, deployed on the dev chain. */
export const collectionsExamples: Readonly<Record<string, OperationExample>> = {
  listCollections: { response: page([collection]) },
  createCollection: {
    request: {
      name: 'Northwind Genesis',
      default_item_type_id: ids.itemType,
      image_url: 'https://cdn.northwind.example/genesis/cover.png',
      deployment_request: deploymentRequest,
    },
    response: pendingCollection,
  },
  getCollection: { params: { collection_id: ids.collection }, response: collection },
  editCollection: {
    params: { collection_id: ids.collection },
    request: { royalty_info: { receiver: address.payout, amount_bps: 500 } },
    response: collection,
  },
  submitDeploymentRequest: {
    params: { collection_id: ids.collection },
    request: deploymentRequest,
    response: { status: 'PENDING', transaction_id: ids.deployTransaction, failure_reason: null },
  },
  getDeploymentRequest: {
    params: { collection_id: ids.collection },
    response: { status: 'SUCCESS', transaction_id: ids.deployTransaction, failure_reason: null },
  },
  getCollectionCapabilities: {
    params: { collection_id: ids.collection },
    response: { capabilities: CAPABILITIES },
  },
};
