import { defaultTemplate, TEMPLATE_VARIABLES } from '../modules/platform/mail/templates.ts';

/**
 * A realistic example of every operation of the OpenAPI document, keyed by operationId, added to
 * the document when it is built (app.ts: swagger's `transformObject`), so no route file carries
 * one. test/openapi-examples.test.ts fails when an operation has none, and validates each example
 * against its operation's schemas. One story runs through them: the organization "Northwind
 * Studios" deploys "Northwind Genesis" (a FlexibleERC721 on the dev chain, 31337), adds items,
 * locks and mints them.
 *
 * Adding an operation: add an entry under its operationId with `params` (every path parameter),
 * `request` (when it takes a body) and `response` (when its success answer has one), reusing the
 * fixtures below. Ids are UUIDv7, addresses EIP-55, timestamps ISO 8601 with milliseconds,
 * Uint256 values decimal strings.
 */
export interface OperationExample {
  /** Path parameters by name: each becomes its parameter's `example`. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** The JSON request body. */
  readonly request?: unknown;
  /** The body of the success response. */
  readonly response?: unknown;
}

const ids = {
  organization: '01a1f8e0-f3bf-7600-878a-bd4b13f028be',
  otherOrganization: '01a2059c-27ba-7dc7-86a8-ffa09a583973',
  admin: '01a1f989-c2be-7b6c-99bb-bfa328d61f40',
  member: '01a1fa35-c60d-7522-b544-bd7633146a4a',
  invited: '01a206f9-c89b-7c1a-b883-41f2268721ff',
  apiKey: '01a1fae4-b9f1-7b85-aa9f-e192155fc8a6',
  wallet: '01a1fb8a-ecc0-7b1a-8816-90df82019d17',
  collection: '01a1fc36-b4d0-7fb8-8cd2-b85d41fd22e6',
  itemType: '01a1fce1-124d-70f7-8a58-b689e050e35d',
  items: [
    '01a1fd90-0479-7590-bdd4-b3255fef8204',
    '01a1fe38-6427-7829-9e7e-6bb8d635a68a',
    '01a1fee0-19d8-7326-a832-b96161f242b0',
  ],
  mintRequests: ['01a1ff86-d55e-7d5e-b36c-e54a0322fa4f', '01a2003a-cbbd-7a32-8854-a4559fcfe89a'],
  transferRequest: '01a20192-c846-7789-b3e1-44fc817653fd',
  deployTransaction: '01a20243-0f57-7dcb-b5b5-8d4080bcae9b',
  mintTransaction: '01a202eb-57ff-7bda-8729-5055ffda0d5c',
  transferTransaction: '01a20390-4898-746e-bea3-923f993af6a2',
  mail: '01a204f1-3ff2-799c-8f11-f13a2b14f61e',
  emailIntegration: '01a2040f-2565-7922-900c-e71277b5554b',
  campaign: '01a20422-0a01-7de6-b1c5-1ffaf4d7ff65',
  /** The item held for an email claim (token 4), and the claim's mint. */
  claimItem: '01a207d7-7da0-795a-84a0-a9441c9c9ee5',
  emailClaim: '01a207e7-8126-7c11-898f-4a6097b84d44',
  claimTransaction: '01a207ed-5ba3-7188-a73d-5fbaaa7b9685',
  listing: '01a20ab1-5c2e-7d4f-9a1b-3c5d7e9f1a2b',
  purchaseIntent: '01a20b62-7d3f-7e5a-8b2c-4d6e8f0a2b3c',
  saleEmailClaim: '01a20c13-8e4a-7f6b-9c3d-5e7f9a1b3c4d',
  // The fixed role ids the first migration seeds (src/access/permissions.ts ROLE_IDS).
  orgAdminRole: '0190f1c0-0000-7000-8000-000000000002',
  orgMemberRole: '0190f1c0-0000-7000-8000-000000000003',
} as const;

const address = {
  /** The organization's wallet (anvil's first account on the dev chain). */
  wallet: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  payout: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  collector: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  otherCollector: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  /** The address an email claim's recipient redeems to. */
  claimer: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  externalContract: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
} as const;

const txHash = {
  deploy: '0x8f6c2a1d0b7e4f3a9c5d1e2b7a6f4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b',
  mint: '0x3b1e9d7c5a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e3d',
  transfer: '0xd4a7c2e9f1b3d5a7c9e1f3b5d7a9c1e3f5b7d9a1c3e5f7b9d1a3c5e7f9b1d3a5',
  claim: '0x2300afd43909e023ce48e650fe26754a101659e446bba1873b8c39102f433f3f',
} as const;

const cryptoProvider = {
  configured: true,
  network: 'base',
  webhook_url: `https://tokens.northwind.example/v1/webhooks/crypto-provider/${ids.organization}`,
};

const PERMISSIONS_OF_ORG_ADMIN = [
  'collections:read',
  'collections:write',
  'items:read',
  'items:write',
  'item_types:read',
  'item_types:write',
  'mint_requests:read',
  'mint_requests:write',
  'transfer_requests:read',
  'transfer_requests:write',
  'email_claims:read',
  'email_claims:write',
  'email_integrations:read',
  'email_integrations:write',
  'email_templates:read',
  'email_templates:write',
  'marketing_campaigns:read',
  'marketing_campaigns:write',
  'organizations:read',
  'organizations:write',
  'users:read',
  'users:write',
  'api_keys:read',
  'api_keys:write',
  'networks:read',
  'transactions:read',
];

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

/** A list answer: one page, `cursor` null when nothing follows. */
function page(results: unknown[], more?: { cursor: string; total_results: number }) {
  return more
    ? { results, cursor: more.cursor, has_more: true, total_results: more.total_results }
    : { results, cursor: null, has_more: false, total_results: results.length };
}

const INVITE_URL =
  'http://localhost:8080/verify?token=Qm9vdHN0cmFwLXZlcmlmeS10b2tlbi0xMjM0NTY3ODkw&email=linus%40northwind.example';

const NEXT_CURSOR =
  'eyJrIjpbIjIwMjYtMTEtMjFUMTA6MDM6NTYuNDA5WiJdfQ.kP3x9QeVw2mZ7yTfA1bLcR8sNdU4hJ6oGiX0vEa5Wq';

const adminUser = {
  id: ids.admin,
  email: 'ada@northwind.example',
  active: true,
  last_seen: '2026-11-23T09:41:12.318Z',
  organization_id: ids.organization,
  role_id: ids.orgAdminRole,
  mfa_enabled: false,
  created_at: '2026-11-20T15:18:37.502Z',
};

const memberUser = {
  ...adminUser,
  id: ids.member,
  email: 'grace@northwind.example',
  last_seen: '2026-11-22T16:05:44.020Z',
  role_id: ids.orgMemberRole,
  created_at: '2026-11-20T18:26:30.541Z',
};

const invitedUser = {
  ...adminUser,
  id: ids.invited,
  email: 'linus@northwind.example',
  active: false,
  last_seen: null,
  role_id: ids.orgMemberRole,
  created_at: '2026-11-23T05:56:02.843Z',
};

const organization = {
  id: ids.organization,
  name: 'Northwind Studios',
  is_enabled: true,
  mfa_required: false,
  network_ids: [31337],
  card_provider_connect_types: [],
  identity_provider_id: null,
  auto_fund: true,
  domain: 'northwind.example',
  hardware_wallet: false,
  payout_address: address.payout,
  platform_sale_fee: 250,
  created_at: '2026-11-20T12:14:14.463Z',
};

const newOrganization = {
  ...organization,
  id: ids.otherOrganization,
  name: 'Harbor Records',
  network_ids: [],
  auto_fund: false,
  domain: 'harbor.example',
  payout_address: null,
  created_at: '2026-11-22T23:34:09.594Z',
};

const session = {
  access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMWExZjk4OSJ9.q8J1',
  user: adminUser,
};

const apiKey = {
  id: ids.apiKey,
  name: 'drop script',
  prefix: 'tis_5kQ2',
  expiration: '2027-05-20T00:00:00.000Z',
  last_used: '2026-11-23T09:40:58.771Z',
  permissions: PERMISSIONS_OF_ORG_ADMIN,
  created_at: '2026-11-20T21:37:36.241Z',
};

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
    poa: false,
    txResubmitBlockCount: 10,
    url: 'https://mainnet.base.org',
  },
  created_at: '2026-11-22T17:17:21.099Z',
};

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

const itemTypeSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['name', 'image'],
  properties: {
    name: { type: 'string', maxLength: 100 },
    description: { type: 'string' },
    image: { type: 'string', format: 'uri' },
    edition: { type: 'integer', minimum: 1 },
  },
};

const itemType = {
  id: ids.itemType,
  name: 'Artwork',
  json_schema: itemTypeSchema,
  organization_id: ids.organization,
  created_at: '2026-11-21T06:52:51.149Z',
  updated_at: '2026-11-21T06:52:51.149Z',
};

const attributes = {
  name: 'Lighthouse at Dawn',
  description: 'The first light over the northern harbor.',
  image: 'https://cdn.northwind.example/genesis/1.png',
  edition: 1,
};

const newItem = {
  id: ids.items[0],
  collection_id: ids.collection,
  item_type_id: ids.itemType,
  attributes,
  locked: false,
  max_supply: null,
  token_id: null,
  token_status: 'NOT_MINTED',
  media: { image: attributes.image },
  royalty_info: null,
  created_at: '2026-11-21T10:03:56.409Z',
  updated_at: '2026-11-21T10:03:56.409Z',
};

const mintedItem = {
  ...newItem,
  locked: true,
  max_supply: '1',
  token_id: '1',
  token_status: 'MINTED',
  updated_at: '2026-11-22T11:01:53.208Z',
};

const mintRequest = {
  id: ids.mintRequests[0],
  item_id: ids.items[0],
  collection_id: ids.collection,
  token_id: '1',
  state: 'COMPLETED',
  to_address: address.collector,
  transaction_id: ids.mintTransaction,
  tx_hash: txHash.mint,
  failure_reason: null,
  created_at: '2026-11-22T11:01:47.647Z',
  quantity: '1',
};

const newMintRequests = [
  { ...mintRequest, state: 'PENDING', tx_hash: null },
  {
    ...mintRequest,
    id: ids.mintRequests[1],
    item_id: ids.items[1],
    token_id: '2',
    state: 'PENDING',
    tx_hash: null,
  },
];

const transferRequest = {
  id: ids.transferRequest,
  item_id: ids.items[2],
  collection_id: ids.collection,
  token_id: '3',
  state: 'SUBMITTED',
  to_address: address.otherCollector,
  transaction_id: ids.transferTransaction,
  tx_hash: txHash.transfer,
  failure_reason: null,
  created_at: '2026-11-22T14:01:57.144Z',
  quantity: 1,
};

const mintTransaction = {
  id: ids.mintTransaction,
  organization_id: ids.organization,
  network_id: 31337,
  wallet_id: ids.wallet,
  type: 'MINT',
  state: 'COMPLETED',
  from_address: address.wallet,
  to_address: address.contract,
  value: '0',
  nonce: 4,
  tx_hash: txHash.mint,
  attempts: 1,
  gas_limit: '184212',
  fees: {
    max_fee_per_gas: '2000000000',
    max_priority_fee_per_gas: '1000000000',
    gas_price: null,
    gas_used: '153510',
    effective_gas_price: '1875000000',
    fee: '287831250000000',
  },
  on_chain_status: 'SUCCESS',
  block_number: 112,
  contract_address: null,
  failure_reason: null,
  last_error: null,
  created_at: '2026-11-22T11:01:47.647Z',
  updated_at: '2026-11-22T11:01:53.208Z',
  completed_at: '2026-11-22T11:01:53.208Z',
};

const deployTransaction = {
  ...mintTransaction,
  id: ids.deployTransaction,
  type: 'DEPLOY',
  to_address: null,
  nonce: 0,
  tx_hash: txHash.deploy,
  gas_limit: '4381904',
  fees: { ...mintTransaction.fees, gas_used: '3651587', fee: '6846725625000000' },
  block_number: 97,
  contract_address: address.contract,
  created_at: '2026-11-22T07:57:58.999Z',
  updated_at: '2026-11-22T07:58:04.512Z',
  completed_at: '2026-11-22T07:58:04.512Z',
};

const nameFunction = {
  id: '06fdde03',
  abi: {
    type: 'function',
    name: 'name',
    inputs: [],
    outputs: [{ internalType: 'string', name: '', type: 'string' }],
    stateMutability: 'view',
  },
  enabled: false,
};

const setBaseUriFunction = {
  id: '55f804b3',
  abi: {
    type: 'function',
    name: 'setBaseURI',
    inputs: [{ internalType: 'string', name: 'newBaseURI', type: 'string' }],
    outputs: [],
    stateMutability: 'nonpayable',
  },
  enabled: true,
};

const customContract = {
  abi: [
    {
      type: 'function',
      name: 'mint',
      stateMutability: 'nonpayable',
      inputs: [
        { name: 'to', type: 'address' },
        { name: 'tokenId', type: 'uint256' },
      ],
      outputs: [],
    },
    {
      type: 'function',
      name: 'supportsInterface',
      stateMutability: 'view',
      inputs: [{ name: 'interfaceId', type: 'bytes4' }],
      outputs: [{ name: '', type: 'bool' }],
    },
  ],
  bytecode: '0x608060405234801561001057600080fd5b50610150806100206000396000f3fe',
  constructor_args: ['Harbor Tickets', 'HBT'],
  token_type: 'ERC721',
};

// Mail: the organization's Mailgun integration, a campaign with its own claim mail, and an email
// claim of token 4 redeemed to the claimer's address.

const emailIntegration = {
  id: ids.emailIntegration,
  organization_id: ids.organization,
  provider: 'API_MAIL_PROVIDER',
  config: {
    email_from: 'Northwind Studios <drops@northwind.example>',
    email_reply_to: 'support@northwind.example',
    domain: 'mg.northwind.example',
    region: 'EU',
  },
  active: true,
  last_error: null,
  last_error_at: null,
  created_at: '2026-11-22T16:20:31.205Z',
  updated_at: '2026-11-22T16:20:31.205Z',
};

const campaign = {
  id: ids.campaign,
  name: 'Genesis giveaway',
  email_from: 'Northwind Studios via Tokens',
  created_at: '2026-11-22T16:41:09.377Z',
};

const claimTemplate = {
  template_type: 'REDEEM_NFT',
  subject: '{{organization_name}} saved {{item_name}} for you',
  html: [
    '<h1>{{item_name}} is waiting for you</h1>',
    '<p>{{organization_name}} set aside a token of {{collection_name}} for you.</p>',
    '{{#if item_image}}<p><img src="{{item_image}}" alt="{{item_name}}" width="240"></p>{{/if}}',
    '<p><a href="{{claim_url}}">Claim {{item_name}}</a> before {{expiration}}.</p>',
  ].join('\n'),
};

const CLAIM_TOKEN = 'IEF48Mcl403tMgu-8x7nq8DQQp0XvrPwuJSCXlsNtjM';

const emailClaim = {
  id: ids.emailClaim,
  email: 'joan@example.com',
  item_id: ids.claimItem,
  collection_id: ids.collection,
  quantity: 1,
  token_id: '4',
  voucher_id: null,
  tx_payer: 'SELLER',
  type: 'giveaway',
  tx_hash: null,
  active: true,
  claimed: false,
  claimed_at: null,
  created_at: '2026-11-23T10:15:42.118Z',
  expiration: '2026-11-30T10:15:42.118Z',
  last_pin_code_email_sent_at: null,
  campaign_id: ids.campaign,
  mail_status: 'PENDING',
  mail_error: null,
};

const claimedEmailClaim = {
  ...emailClaim,
  tx_hash: txHash.claim,
  claimed: true,
  claimed_at: '2026-11-23T10:22:05.731Z',
  last_pin_code_email_sent_at: '2026-11-23T10:20:48.502Z',
  mail_status: 'SENT',
};

const claimItemView = {
  name: 'Harbor at Dusk',
  image: 'https://cdn.northwind.example/genesis/4.png',
  collection_name: 'Northwind Genesis',
  token_id: '4',
};

const WEBHOOK_IDS = {
  webhook: '01a20650-0b1e-7c3f-9a55-3e1f6ad2c7b1',
  delivery: '01a20690-5c2d-7e48-8b31-7d6f0e9a4c22',
  event: '01a20688-2f4a-7b19-a6d3-51c8e2b7f903',
  testDelivery: '01a206a1-7e3b-7d52-9c14-2b8f4a6e1d05',
  testEvent: '01a206a1-7e3a-7f01-8e62-9d3c5b1a7f46',
} as const;

/** Shown once, at creation (Standard Webhooks: whsec_ and the base64 key). */
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const webhook = {
  id: WEBHOOK_IDS.webhook,
  organization_id: ids.organization,
  url: 'https://hooks.northwind.example/tokens',
  events: ['collection.deployed', 'item.minted', 'mint_request.completed', 'mint_request.failed'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  secret_rotated_at: null,
  created_at: '2026-11-22T11:00:00.000Z',
  updated_at: '2026-11-22T11:00:00.000Z',
};

const webhookDelivery = {
  id: WEBHOOK_IDS.delivery,
  webhook_id: WEBHOOK_IDS.webhook,
  event_id: WEBHOOK_IDS.event,
  event_type: 'mint_request.completed',
  status: 'SUCCEEDED',
  attempts: 2,
  response_status: 200,
  last_error: null,
  created_at: '2026-11-22T11:30:00.000Z',
  next_attempt_at: null,
  completed_at: '2026-11-22T11:30:05.000Z',
};

const listing = {
  id: ids.listing,
  status: 'ACTIVE',
  collection_id: ids.collection,
  item_id: null,
  quantity_listed: 100,
  quantity_remaining: 98,
  sale_type: 'DEFAULT',
  price: '0',
  currency: 'USD',
  settlement_currency: { EMAIL_CLAIM: 'USD' },
  max_quantity_per_tx: 2,
  payment_providers: ['EMAIL_CLAIM'],
  start_time: null,
  end_time: null,
  policy: {
    type: 'FCFS',
    max_per_user: 2,
    payment_session_duration: { timeout_seconds: 900, provider_override: {} },
    email_claim_duration: 604800,
    item_assignment_strategy: 'AUTOMATIC',
    tx_payer: 'SELLER',
    email_addresses: null,
    eth_addresses: null,
  },
  campaign_id: null,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
};

const purchaseIntent = {
  id: ids.purchaseIntent,
  listing_id: ids.listing,
  quantity: 1,
  status: 'CONFIRMED',
  fulfillment_status: 'COMPLETED',
  fulfillment_method: 'EMAIL',
  payment_provider: 'EMAIL_CLAIM',
  email: 'grace@collectors.example',
  eth_address: null,
  item_ids: [ids.items[0]],
  item_claim_ids: [ids.saleEmailClaim],
  transaction_ids: [],
  provider_price: { amount: '0', currency: 'USD' },
  card_provider_payment_intent_id: null,
  crypto_provider_charge_id: null,
  fulfillment_error: null,
  created_at: '2026-11-22T10:00:00.000Z',
  expiration: '2026-11-22T10:15:00.000Z',
  confirmed_at: '2026-11-22T10:00:00.000Z',
};

const platformCardAccount = {
  id: '01a20d24-9f5b-7a7c-8d4e-6f8a0b2c4d5e',
  name: 'Stripe (test)',
  mode: 'TEST',
  publishable_key: 'pk_test_51Nw7cTKq2LhX4mQ9aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3wX5yZ7',
  session_timeout_minutes: 15,
  card_provider_account_id: 'acct_1Nw7cTKq2LhX4mQ9',
  fee_percentage_bps: null,
  config: null,
};

const orgCardAccount = {
  id: platformCardAccount.id,
  name: platformCardAccount.name,
  mode: platformCardAccount.mode,
  publishable_key: platformCardAccount.publishable_key,
  enabled: true,
};

const cardProviderStatus = {
  account_id: 'acct_1PxQ8mRz3KfT2vWb',
  connect_type: 'STANDARD',
  setup_complete: true,
  platform_card_provider_account: orgCardAccount,
};

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  // Auth
  login: {
    request: { email: 'ada@northwind.example', password: 'correct horse battery staple' },
    response: session,
  },
  loginMfa: {
    request: { mfa_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJtZmEiOnRydWV9.Xr4o', code: '492039' },
    response: session,
  },
  verifyUser: {
    request: {
      email: 'linus@northwind.example',
      password: 'a long and private passphrase',
      token: 'Qm9vdHN0cmFwLXZlcmlmeS10b2tlbi0xMjM0NTY3ODkw',
    },
    response: { ...session, user: { ...invitedUser, active: true } },
  },
  forgotPassword: { request: { email: 'ada@northwind.example' } },
  resetPassword: {
    request: { password: 'a new long passphrase', token: 'UmVzZXQtdG9rZW4tZnJvbS10aGUtbWFpbC0xMjM0NTY' },
    response: session,
  },
  changePassword: {
    request: { old_password: 'correct horse battery staple', new_password: 'a new long passphrase' },
    response: session,
  },
  getMe: { response: { organization, permissions: PERMISSIONS_OF_ORG_ADMIN, user: adminUser } },
  startMfaEnrollment: {
    response: {
      secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      otpauth_url:
        'otpauth://totp/Token%20Issuance%20Service:ada%40northwind.example?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Token%20Issuance%20Service',
    },
  },
  confirmMfa: {
    request: { code: '492039' },
    response: { ...session, user: { ...adminUser, mfa_enabled: true } },
  },

  // Users, API keys, roles
  inviteUser: {
    request: { email: 'linus@northwind.example', role_id: ids.orgMemberRole },
    response: invitedUser,
  },
  listUsers: { response: page([adminUser, memberUser]) },
  getUser: { params: { user_id: ids.member }, response: memberUser },
  editUser: {
    params: { user_id: ids.member },
    request: { role_id: ids.orgAdminRole },
    response: { ...memberUser, role_id: ids.orgAdminRole },
  },
  listApiKeys: { response: page([apiKey]) },
  createApiKey: {
    request: { name: 'drop script', expiration: '2027-05-20T00:00:00.000Z' },
    response: {
      ...apiKey,
      last_used: null,
      key: 'tis_5kQ2vN8rT1yW4zB7cE0gH3jL6mP9sU2xA5dF8iK1oR4',
    },
  },
  revokeApiKey: { params: { api_key_id: ids.apiKey } },
  listRoles: {
    response: page([
      {
        id: ids.orgAdminRole,
        name: 'ORG_ADMIN',
        description: 'Everything in its organization',
        permissions: PERMISSIONS_OF_ORG_ADMIN,
      },
      {
        id: ids.orgMemberRole,
        name: 'ORG_MEMBER',
        description: 'Read-only in its organization, plus its own API keys',
        permissions: [...PERMISSIONS_OF_ORG_ADMIN.filter((p) => p.endsWith(':read')), 'api_keys:write'],
      },
    ]),
  },

  // Organizations and wallets
  listOrganizations: { response: page([organization]) },
  createOrganization: {
    request: { name: 'Harbor Records', domain: 'harbor.example', platform_sale_fee: 250 },
    response: newOrganization,
  },
  getOrganization: { params: { organization_id: ids.organization }, response: organization },
  editOrganization: {
    params: { organization_id: ids.organization },
    request: { network_ids: [31337, 8453], auto_fund: true },
    response: { ...organization, network_ids: [31337, 8453] },
  },
  getPayoutConfig: {
    params: { organization_id: ids.organization },
    response: { payout_address: address.payout, platform_sale_fee: 250 },
  },
  editPayoutConfig: {
    params: { organization_id: ids.organization },
    request: { payout_address: address.payout },
    response: { payout_address: address.payout, platform_sale_fee: 250 },
  },
  listOrganizationWallets: {
    params: { organization_id: ids.organization },
    response: page([
      {
        id: ids.wallet,
        address: address.wallet,
        network_ids: [31337],
        auto_fund: true,
        balance: { '31337': '999712168750000000' },
      },
    ]),
  },

  // Networks
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

  // Mail
  listMailbox: {
    response: page([
      {
        id: ids.mail,
        to: 'linus@northwind.example',
        subject: 'You are invited to Northwind Studios',
        html: [
          '<p>Hello,</p>',
          '<p>You have been invited to join <strong>Northwind Studios</strong>.</p>',
          `<p><a href="${INVITE_URL.replace('&', '&amp;')}">Accept the invitation and set your password</a></p>`,
          '<p>This link expires on 2026-11-30T05:56:02.843Z.</p>',
        ].join('\n'),
        text: [
          'Hello,',
          '',
          'You have been invited to join Northwind Studios.',
          `Accept the invitation and set your password: ${INVITE_URL}`,
          '',
          'This link expires on 2026-11-30T05:56:02.843Z.',
        ].join('\n'),
        created_at: '2026-11-23T05:56:02.843Z',
      },
    ]),
  },

  // Transactions
  listTransactions: {
    response: page([deployTransaction, mintTransaction], { cursor: NEXT_CURSOR, total_results: 7 }),
  },
  getTransaction: { params: { transaction_id: ids.mintTransaction }, response: mintTransaction },

  // Contracts and capabilities
  verifyCapabilities: {
    request: customContract,
    response: { capabilities: ['ERC721', 'ADMIN_MINT_SINGLE'] },
  },
  listCapabilities: {
    response: page(
      [
        {
          name: 'ADMIN_MINT_BATCH',
          description: 'Admin mint of several tokens in one transaction',
          abi: [
            {
              type: 'function',
              name: 'mintBatch',
              inputs: [
                { type: 'address', name: 'to' },
                { type: 'uint256[]', name: 'tokenIds' },
              ],
              outputs: [],
              stateMutability: 'nonpayable',
            },
          ],
        },
      ],
      { cursor: NEXT_CURSOR, total_results: 19 },
    ),
  },

  // Collections and deployments
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

  // Contract functions
  listContractFunctions: {
    params: { collection_id: ids.collection },
    response: page([nameFunction, setBaseUriFunction], { cursor: NEXT_CURSOR, total_results: 41 }),
  },
  getContractFunction: {
    params: { collection_id: ids.collection, function_id: nameFunction.id },
    response: nameFunction,
  },
  editContractFunction: {
    params: { collection_id: ids.collection, function_id: setBaseUriFunction.id },
    request: { enabled: true },
    response: { contract_func: setBaseUriFunction },
  },
  callContractFunction: {
    params: { collection_id: ids.collection, function_id: nameFunction.id },
    request: { arguments: [] },
    response: { result: 'Northwind Genesis' },
  },
  executeContractFunction: {
    params: { collection_id: ids.collection, function_id: setBaseUriFunction.id },
    request: { arguments: ['https://meta.northwind.example/genesis/'] },
    response: { transaction_id: ids.mintTransaction },
  },

  // Item types
  listItemTypes: { response: page([itemType]) },
  createItemType: { request: { name: 'Artwork', json_schema: itemTypeSchema }, response: itemType },
  getItemTypeMetaSchema: {
    response: {
      example_json_schema: itemTypeSchema,
      meta_json_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
    },
  },
  getItemType: { params: { item_type_id: ids.itemType }, response: itemType },
  editItemType: {
    params: { item_type_id: ids.itemType },
    request: { name: 'Artwork', json_schema: { ...itemTypeSchema, required: ['name'] } },
    response: {
      ...itemType,
      json_schema: { ...itemTypeSchema, required: ['name'] },
      updated_at: '2026-11-21T08:12:30.004Z',
    },
  },

  // Items
  listItems: { response: page([mintedItem], { cursor: NEXT_CURSOR, total_results: 250 }) },
  createItem: { request: { collection_id: ids.collection, attributes }, response: newItem },
  bulkCreateItems: {
    request: {
      items: [
        { collection_id: ids.collection, attributes },
        {
          collection_id: ids.collection,
          attributes: {
            name: 'Harbor Fog',
            image: 'https://cdn.northwind.example/genesis/2.png',
            edition: 2,
          },
        },
        {
          collection_id: ids.collection,
          attributes: {
            name: 'Night Ferry',
            image: 'https://cdn.northwind.example/genesis/3.png',
            edition: 3,
          },
        },
      ],
    },
    response: { item_ids: ids.items },
  },
  lockItems: {
    request: { collection_id: ids.collection },
    response: {
      lock_outputs: ids.items.map((item_id, i) => ({ item_id, max_supply: '1', token_id: String(i + 1) })),
    },
  },
  getItem: { params: { item_id: ids.items[0] }, response: mintedItem },
  editItem: {
    params: { item_id: ids.items[0] },
    request: { attributes: { ...attributes, description: 'First light over the northern harbor, 2026.' } },
    response: {
      ...mintedItem,
      attributes: { ...attributes, description: 'First light over the northern harbor, 2026.' },
    },
  },
  deleteItem: { params: { item_id: ids.items[1] } },
  getItemStatus: {
    params: { item_id: ids.items[0] },
    response: {
      email_claim_ids: [],
      listing_ids: [],
      mint_request_ids: [ids.mintRequests[0]],
      transfer_request_ids: [],
      reservations: { mint: 0, transfer: 0 },
      supply: { current: '1', total: '1' },
    },
  },

  // Mint and transfer requests
  listMintRequests: { response: page([mintRequest]) },
  createMintRequests: {
    request: {
      collection_id: ids.collection,
      token_ranges: [{ from_id: '1', to_id: '2' }],
      to_address: address.collector,
    },
    response: { mint_requests: newMintRequests },
  },
  getMintRequest: { params: { mint_request_id: ids.mintRequests[0] }, response: mintRequest },
  listTransferRequests: { response: page([transferRequest]) },
  createTransferRequests: {
    request: { item_id: ids.items[2], to_address: address.otherCollector },
    response: { transfer_requests: [{ ...transferRequest, state: 'PENDING', tx_hash: null }] },
  },
  getTransferRequest: { params: { transfer_request_id: ids.transferRequest }, response: transferRequest },

  // Webhooks
  listWebhooks: { response: page([webhook]) },
  createWebhook: {
    request: { url: webhook.url, events: webhook.events },
    response: { ...webhook, secret: WEBHOOK_SECRET },
  },
  getWebhook: { params: { webhook_id: WEBHOOK_IDS.webhook }, response: webhook },
  editWebhook: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    request: { events: [...webhook.events, 'transfer_request.completed'] },
    response: {
      ...webhook,
      events: [...webhook.events, 'transfer_request.completed'],
      updated_at: '2026-11-22T11:05:00.000Z',
    },
  },
  deleteWebhook: { params: { webhook_id: WEBHOOK_IDS.webhook } },
  rotateWebhookSecret: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    response: {
      ...webhook,
      secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
      secret_rotated_at: '2026-11-23T09:00:00.000Z',
      updated_at: '2026-11-23T09:00:00.000Z',
    },
  },
  testWebhook: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    response: {
      ...webhookDelivery,
      id: WEBHOOK_IDS.testDelivery,
      event_id: WEBHOOK_IDS.testEvent,
      event_type: 'webhook.test',
      status: 'PENDING',
      attempts: 0,
      response_status: null,
      next_attempt_at: '2026-11-22T11:10:00.000Z',
      completed_at: null,
      created_at: '2026-11-22T11:10:00.000Z',
    },
  },
  listWebhookDeliveries: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    response: page([webhookDelivery]),
  },
  retryWebhookDelivery: {
    params: { webhook_id: WEBHOOK_IDS.webhook, delivery_id: WEBHOOK_IDS.delivery },
    response: {
      ...webhookDelivery,
      status: 'PENDING',
      next_attempt_at: '2026-11-22T12:00:00.000Z',
      completed_at: null,
    },
  },

  // Metadata (what the contract's contractURI and tokenURI point at)
  getContractMetadata: {
    params: { collection_id: ids.collection },
    response: {
      name: 'Northwind Genesis',
      symbol: 'NWG',
      image: 'https://cdn.northwind.example/genesis/cover.png',
      seller_fee_basis_points: 500,
      fee_recipient: address.payout,
    },
  },
  getTokenMetadata: {
    params: { collection_id: ids.collection, token_id: '1' },
    response: {
      name: 'Lighthouse at Dawn',
      description: 'The first light over the northern harbor.',
      image: 'https://cdn.northwind.example/genesis/1.png',
      attributes: [{ trait_type: 'edition', value: 1 }],
    },
  },
  // Email integrations: the organization's own mail provider
  listEmailIntegrations: { response: page([emailIntegration]) },
  createEmailIntegration: {
    request: {
      provider: 'API_MAIL_PROVIDER',
      config: { ...emailIntegration.config, api_key: 'key-3f9a1c7e5b2d4f6a8c0e2b4d6f8a1c3e' },
    },
    response: emailIntegration,
  },
  getEmailIntegration: { params: { integration_id: ids.emailIntegration }, response: emailIntegration },
  editEmailIntegration: {
    params: { integration_id: ids.emailIntegration },
    request: { config: { email_reply_to: 'hello@northwind.example' } },
    response: {
      ...emailIntegration,
      config: { ...emailIntegration.config, email_reply_to: 'hello@northwind.example' },
      updated_at: '2026-11-23T08:12:55.940Z',
    },
  },
  deleteEmailIntegration: { params: { integration_id: ids.emailIntegration } },
  testEmailIntegration: {
    params: { integration_id: ids.emailIntegration },
    request: { to: 'ada@northwind.example' },
    response: { delivered: true },
  },

  // Crypto provider: the organization's Coinbase Business payment links
  getCryptoProvider: { response: cryptoProvider },
  putCryptoProvider: {
    request: {
      api_key_id:
        'organizations/5b0c4a8e-3f2d-4e1a-9c7b-6d5e4f3a2b1c/apiKeys/0e9d8c7b-6a5f-4e3d-2c1b-0a9f8e7d6c5b',
      api_key_secret:
        '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg…\n-----END PRIVATE KEY-----\n',
      webhook_secret: 'whsec_7f3c9a1e5b2d4f6a8c0e2b4d6f8a1c3e',
      network: 'base',
    },
    response: cryptoProvider,
  },
  deleteCryptoProvider: {},

  // Marketing campaigns
  listMarketingCampaigns: { response: page([campaign]) },
  createMarketingCampaign: { request: { name: 'Genesis giveaway' }, response: campaign },
  getMarketingCampaign: { params: { campaign_id: ids.campaign }, response: campaign },
  editMarketingCampaign: {
    params: { campaign_id: ids.campaign },
    request: { email_from: 'Northwind Drops <drops@northwind.example>' },
    response: { ...campaign, email_from: 'Northwind Drops <drops@northwind.example>' },
  },
  deleteMarketingCampaign: { params: { campaign_id: ids.campaign } },

  // Email templates (with ?campaign_id=, a campaign's own)
  listEmailTemplates: {
    response: page(
      [
        { ...claimTemplate, origin_type: 'ORGANIZATION_CUSTOM', editor_embed_design_json: null },
        {
          template_type: 'CLAIM_PINCODE',
          ...defaultTemplate('CLAIM_PINCODE'),
          origin_type: 'PLATFORM_DEFAULT',
          editor_embed_design_json: null,
        },
      ],
      { cursor: NEXT_CURSOR, total_results: 3 },
    ),
  },
  getEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    response: { ...claimTemplate, origin_type: 'ORGANIZATION_CUSTOM', editor_embed_design_json: null },
  },
  createEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    request: { subject: claimTemplate.subject, html: claimTemplate.html },
    response: { ...claimTemplate, origin_type: 'ORGANIZATION_CUSTOM', editor_embed_design_json: null },
  },
  editEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    request: { subject: '{{item_name}} is yours to claim', html: claimTemplate.html },
    response: {
      ...claimTemplate,
      subject: '{{item_name}} is yours to claim',
      origin_type: 'ORGANIZATION_CUSTOM',
      editor_embed_design_json: null,
    },
  },
  deleteEmailTemplate: { params: { template_type: 'REDEEM_NFT' } },
  testEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    request: {
      subject: claimTemplate.subject,
      html: claimTemplate.html,
      variables: [
        { name: 'item_name', value: 'Harbor at Dusk' },
        { name: 'collection_name', value: 'Northwind Genesis' },
      ],
    },
    response: { delivered: true, to: 'ada@northwind.example' },
  },
  listEmailTemplateVariables: {
    params: { template_type: 'REDEEM_NFT' },
    response: page(
      Object.entries({ ...TEMPLATE_VARIABLES.REDEEM_NFT, organization_name: 'Northwind Studios' }).map(
        ([name, default_value]) => ({ name, template_type: 'REDEEM_NFT', default_value, value: null }),
      ),
    ),
  },

  // Email claims: an item held for an address, redeemed from the mailed link with a mailed PIN
  listEmailClaims: { response: page([claimedEmailClaim]) },
  createEmailClaim: {
    request: {
      email: 'joan@example.com',
      item_id: ids.claimItem,
      quantity: 1,
      type: 'giveaway',
      campaign_id: ids.campaign,
    },
    response: emailClaim,
  },
  getEmailClaim: { params: { claim_id: ids.emailClaim }, response: claimedEmailClaim },
  resendEmailClaim: {
    params: { claim_id: ids.emailClaim },
    request: { email: 'joan.doe@example.com' },
    response: { ...emailClaim, email: 'joan.doe@example.com' },
  },
  revokeEmailClaim: {
    params: { claim_id: ids.emailClaim },
    response: { ...emailClaim, active: false, mail_status: 'SENT' },
  },
  getPublicEmailClaim: {
    params: { claim_token: CLAIM_TOKEN },
    response: {
      status: 'CLAIMED',
      expiration: emailClaim.expiration,
      tx_payer: 'SELLER',
      item: claimItemView,
      email_hint: 'j***@example.com',
      pin: null,
      delivery: {
        transaction_id: ids.claimTransaction,
        state: 'COMPLETED',
        tx_hash: txHash.claim,
        to_address: address.claimer,
        token_id: '4',
        network_id: 31337,
        contract_address: address.contract,
      },
      voucher: null,
    },
  },
  verifyEmailClaim: {
    params: { claim_token: CLAIM_TOKEN },
    response: { sent_at: '2026-11-23T10:20:48.502Z', expires_at: '2026-11-23T10:35:48.502Z', tries_left: 5 },
  },
  redeemEmailClaim: {
    params: { claim_token: CLAIM_TOKEN },
    request: { address: address.claimer, pin: '482913' },
    response: { status: 'CLAIMED', transaction_id: ids.claimTransaction, voucher: null },
  },

  // Listings and purchase intents
  createListing: {
    request: {
      collection_id: ids.collection,
      token_ranges: [{ from_id: '1', to_id: '100' }],
      currency: 'USD',
      price: '0',
      max_quantity_per_tx: 2,
      payment_providers: ['EMAIL_CLAIM'],
      policy: { type: 'FCFS', max_per_user: 2, email_claim_duration: 604800 },
    },
    response: listing,
  },
  listListings: { response: page([listing]) },
  getListing: { params: { listing_id: ids.listing }, response: listing },
  editListing: {
    params: { listing_id: ids.listing },
    request: { end_time: '2026-12-24T18:00:00.000Z' },
    response: { ...listing, end_time: '2026-12-24T18:00:00.000Z' },
  },
  cancelListing: {
    params: { listing_id: ids.listing },
    response: { ...listing, status: 'CANCELLED' },
  },
  getPublicListing: {
    params: { listing_id: ids.listing },
    response: {
      id: ids.listing,
      status: 'ACTIVE',
      collection_id: ids.collection,
      item_id: null,
      network_id: 31337,
      contract_address: address.contract,
      token_type: 'ERC721',
      quantity_listed: 100,
      quantity_remaining: 98,
      quantity_available: 97,
      price: '0',
      currency: 'USD',
      settlement_currency: { EMAIL_CLAIM: 'USD' },
      max_quantity_per_tx: 2,
      payment_providers: ['EMAIL_CLAIM'],
      start_time: null,
      end_time: null,
      policy: { type: 'FCFS', max_per_user: 2, tx_payer: 'SELLER' },
    },
  },
  getListingEligibility: {
    params: { listing_id: ids.listing },
    response: { is_eligible: true, quantity_claimed: 1, quantity_allowed: 1, reason: null },
  },
  createPurchaseIntent: {
    request: {
      listing_id: ids.listing,
      quantity: 1,
      provider: 'EMAIL_CLAIM',
      buyer: { email: 'grace@collectors.example' },
    },
    response: {
      id: ids.purchaseIntent,
      status: 'CONFIRMED',
      expiration: '2026-11-22T10:15:00.000Z',
      client_token: 'Q2xpZW50LXRva2VuLW9mLXRoZS1idXllci0xMjM0NTY',
      fulfillment_method: 'EMAIL',
      provider_price: { amount: '0', currency: 'USD' },
      data: null,
    },
  },
  getPublicPurchaseIntent: {
    params: { purchase_intent_id: ids.purchaseIntent },
    response: {
      id: ids.purchaseIntent,
      listing_id: ids.listing,
      quantity: 1,
      status: 'CONFIRMED',
      fulfillment_status: 'COMPLETED',
      fulfillment_method: 'EMAIL',
      payment_provider: 'EMAIL_CLAIM',
      provider_price: { amount: '0', currency: 'USD' },
      data: null,
      item_claim_ids: [ids.saleEmailClaim],
      transaction_ids: [],
      created_at: '2026-11-22T10:00:00.000Z',
      expiration: '2026-11-22T10:15:00.000Z',
    },
  },
  cancelPublicPurchaseIntent: { params: { purchase_intent_id: ids.purchaseIntent } },
  listPurchaseIntents: { response: page([purchaseIntent]) },
  getPurchaseIntent: { params: { purchase_intent_id: ids.purchaseIntent }, response: purchaseIntent },
  // Mint vouchers (the buyer mints with the organization wallet's signature)
  listPublicMintVouchers: {
    params: { eth_address: address.collector },
    response: page([
      {
        id: '01a20611-5b2c-7e0d-9a41-2f6c8e3d7b15',
        contract: address.contract,
        minter: address.collector,
        network_id: 31337,
        signature:
          '0x5f1c3a7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a51b',
        voucher: {
          net_recipient: address.payout,
          initial_recipient: address.wallet,
          initial_recipient_amount: '2500000000000000',
          quantity: '1',
          nonce: '0',
          expiry: '1795860000',
          price: '50000000000000000',
          token_id: '2',
          currency: '0x0000000000000000000000000000000000000000',
        },
        created_at: '2026-11-22T10:05:00.000Z',
      },
    ]),
  },

  // Card provider
  listPlatformCardProviderAccounts: { response: page([platformCardAccount]) },
  createPlatformCardProviderAccount: {
    request: {
      name: platformCardAccount.name,
      mode: 'TEST',
      publishable_key: platformCardAccount.publishable_key,
      secret_key: 'sk_test_51Nw7cTKq2LhX4mQ9zY8xW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC7bA6',
      card_provider_account_id: platformCardAccount.card_provider_account_id,
      session_timeout_minutes: 15,
      account_webhook_endpoint_secret: 'whsec_4bJk8sQm2VxR7tLp9WzN3cYd6HfG1aE5',
      connect_webhook_endpoint_secret: 'whsec_9TgH2mKx5RqB8wLc3VnZ7pDs1YjF4eA6',
    },
    response: platformCardAccount,
  },
  getPlatformCardProviderAccount: {
    params: { platform_card_provider_account_id: platformCardAccount.id },
    response: platformCardAccount,
  },
  editPlatformCardProviderAccount: {
    params: { platform_card_provider_account_id: platformCardAccount.id },
    request: { session_timeout_minutes: 30 },
    response: { ...platformCardAccount, session_timeout_minutes: 30 },
  },
  listOrganizationCardProviderAccounts: {
    params: { organization_id: ids.organization },
    response: page([orgCardAccount]),
  },
  editOrganizationCardProviderAccount: {
    params: { organization_id: ids.organization, platform_card_provider_account_id: platformCardAccount.id },
    request: { enabled: true },
    response: orgCardAccount,
  },
  getCardProviderStatus: { response: cardProviderStatus },
  setupCardProvider: {
    request: {
      connect_type: 'STANDARD',
      platform_card_provider_account_id: platformCardAccount.id,
      return_url: 'https://northwind.example/settings/payments',
    },
    response: { url: 'https://connect.stripe.com/setup/s/acct_1PxQ8mRz3KfT2vWb/Yq7dK2mXpR4s' },
  },
  sendCardProviderCommand: { request: { command: 'REFRESH' }, response: cardProviderStatus },
};

interface DocumentOperation {
  operationId?: string;
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

/**
 * Puts each operation's example into the document: path parameter `example`s, the JSON request
 * body's and the success response's. Operations without an entry are left as they are (the
 * examples test names them).
 */
export function addExamples<T extends { paths?: unknown }>(document: T): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, DocumentOperation>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const example = operation.operationId ? OPERATION_EXAMPLES[operation.operationId] : undefined;
      if (!example) continue;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && example.params && parameter.name in example.params) {
          parameter.example = example.params[parameter.name];
        }
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && example.request !== undefined) body.example = example.request;
      const success = Object.entries(operation.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
      const content = success?.[1].content?.['application/json'];
      if (content && example.response !== undefined) content.example = example.response;
    }
  }
  return document;
}
