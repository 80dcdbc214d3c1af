import { type Static, Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../../http/pagination.ts';
import { Nullable, Uint256, Uuid } from '../../../http/schemas.ts';

/** An organization's signing wallet as the organization sees it. */
export const OrganizationWallet = Type.Object(
  {
    id: Uuid,
    address: Type.String({ description: 'EIP-55 checksummed' }),
    network_ids: Type.Array(Type.Integer(), {
      description: "The organization's networks that are registered and enabled",
    }),
    auto_fund: Type.Boolean({ description: "The organization's auto_fund" }),
    balance: Type.Record(Type.String({ pattern: '^(0|[1-9][0-9]*)$' }), Nullable(Uint256), {
      description:
        'Native balance in wei on each of network_ids, keyed by network id; null when that network’s node did not answer',
    }),
  },
  { title: 'OrganizationWallet' },
);
export type OrganizationWallet = Static<typeof OrganizationWallet>;

export const ListOrganizationWalletsQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});
