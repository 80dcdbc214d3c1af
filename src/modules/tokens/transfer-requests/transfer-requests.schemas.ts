import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from '../../../http/schemas.ts';
import { TOKEN_REQUEST_FIELDS, tokenRequestListQuery } from '../token-flows/token-flows.schemas.ts';

/** A transfer request takes the body of a mint request. */
export { TokenRequestBody } from '../token-flows/token-flows.schemas.ts';

export const TransferRequest = Type.Object(
  {
    ...TOKEN_REQUEST_FIELDS,
    quantity: Type.Integer({ minimum: 1, description: 'Units transferred' }),
  },
  { $id: 'TransferRequest', title: 'TransferRequest' },
);
export type TransferRequest = Static<typeof TransferRequest>;

export const TransferRequests = Type.Object(
  { transfer_requests: Type.Array(Type.Ref(TransferRequest), { description: 'One record per item' }) },
  { title: 'TransferRequests' },
);

export const ListTransferRequestsQuery = tokenRequestListQuery();

export const TransferRequestParams = Type.Object(
  { transfer_request_id: Uuid },
  { additionalProperties: false },
);
