/**
 * The story the OpenAPI examples tell, and what every module's examples share. Each module's
 * `<group>.examples.ts` gives a realistic example of every operation its routes declare, keyed by
 * operationId; src/wiring/examples.ts merges them, and they are added to the document when it is
 * built (app.ts: swagger's `transformObject`), so no route file carries one.
 * test/openapi-examples.test.ts fails when an operation has none, and validates each example
 * against its operation's schemas. One story runs through them: the organization "Northwind
 * Studios" deploys "Northwind Genesis" (a FlexibleERC721 on the dev chain, 31337), adds items,
 * locks and mints them.
 *
 * Adding an operation's example: add the entry to the module's `<group>.examples.ts`, under its
 * operationId, with `params` (every path parameter), `request` (when it takes a body) and
 * `response` (when its success answer has one), reusing the fixtures below and those of lower
 * modules. Ids are UUIDv7, addresses EIP-55, timestamps ISO 8601 with milliseconds, Uint256 values
 * decimal strings.
 */

/** The ids of the story's records, so an id names the same record in every example. */
export const ids = {
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

/** The story's accounts and contracts. */
export const address = {
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

/** The hashes of the story's transactions: the deploy, a mint, a transfer and a claim's mint. */
export const txHash = {
  deploy: '0x8f6c2a1d0b7e4f3a9c5d1e2b7a6f4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b',
  mint: '0x3b1e9d7c5a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e3d',
  transfer: '0xd4a7c2e9f1b3d5a7c9e1f3b5d7a9c1e3f5b7d9a1c3e5f7b9d1a3c5e7f9b1d3a5',
  claim: '0x2300afd43909e023ce48e650fe26754a101659e446bba1873b8c39102f433f3f',
} as const;

/** A list answer: one page, `cursor` null when nothing follows. */
export function page(results: unknown[], more?: { cursor: string; total_results: number }) {
  return more
    ? { results, cursor: more.cursor, has_more: true, total_results: more.total_results }
    : { results, cursor: null, has_more: false, total_results: results.length };
}

/** The cursor of a list answer that has more to come. */
export const NEXT_CURSOR =
  'eyJrIjpbIjIwMjYtMTEtMjFUMTA6MDM6NTYuNDA5WiJdfQ.kP3x9QeVw2mZ7yTfA1bLcR8sNdU4hJ6oGiX0vEa5Wq';
