import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { CryptoProvider } from '../crypto-provider.schemas.ts';
import { cryptoProviderWebhookRoute } from './crypto-provider-webhook.ts';
import { deleteCryptoProviderRoute } from './delete-crypto-provider.ts';
import { getCryptoProviderRoute } from './get-crypto-provider.ts';
import { putCryptoProviderRoute } from './put-crypto-provider.ts';

export const cryptoProviderRoutes: RouteModule[] = [
  getCryptoProviderRoute,
  putCryptoProviderRoute,
  deleteCryptoProviderRoute,
];

/** The provider-signed webhook (webhooks scope, raw body). */
export const cryptoProviderWebhookRoutes: RouteModule[] = [cryptoProviderWebhookRoute];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const cryptoProviderSchemas: TSchema[] = [CryptoProvider];
