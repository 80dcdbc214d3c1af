import { type Static, Type } from '@sinclair/typebox';
import { Uint256, Uuid } from '../../../http/schemas.ts';
import { TOKEN_REQUEST_FIELDS, tokenRequestListQuery } from '../token-flows/token-flows.schemas.ts';

export { TokenRequestBody } from '../token-flows/token-flows.schemas.ts';

export const MintRequest = Type.Object(
  { ...TOKEN_REQUEST_FIELDS, quantity: { ...Uint256, description: 'Units minted' } },
  { $id: 'MintRequest', title: 'MintRequest' },
);
export type MintRequest = Static<typeof MintRequest>;

export const MintRequests = Type.Object(
  { mint_requests: Type.Array(Type.Ref(MintRequest), { description: 'One record per item' }) },
  { title: 'MintRequests' },
);

export const ListMintRequestsQuery = tokenRequestListQuery();

export const MintRequestParams = Type.Object({ mint_request_id: Uuid }, { additionalProperties: false });
