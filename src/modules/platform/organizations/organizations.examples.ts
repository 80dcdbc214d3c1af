import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, page } from '../../../http/openapi-story.ts';

/** Northwind Studios, also the organization of /v1/me (auth). */
export const organization = {
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

/** Northwind Studios, a second organization, its payout and its wallet. */
export const organizationsExamples: Readonly<Record<string, OperationExample>> = {
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
};
