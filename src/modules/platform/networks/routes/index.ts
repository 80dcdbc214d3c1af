import type { RouteModule } from '../../../../http/types.ts';
import { addPaymentTokenRoute } from './add-payment-token.ts';
import { createNetworkRoute } from './create-network.ts';
import { editNetworkRoute } from './edit-network.ts';
import { getNetworkRoute } from './get-network.ts';
import { listNetworksRoute } from './list-networks.ts';
import { listPaymentTokensRoute } from './list-payment-tokens.ts';

export const networkRoutes: RouteModule[] = [
  listNetworksRoute,
  createNetworkRoute,
  getNetworkRoute,
  editNetworkRoute,
  listPaymentTokensRoute,
  addPaymentTokenRoute,
];
