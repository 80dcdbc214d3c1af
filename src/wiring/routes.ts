import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../http/types.ts';
import { ErrorBody } from '../lib/errors.ts';
import { collectionRoutes, collectionSchemas } from '../modules/catalog/collections/routes/index.ts';
import {
  contractFunctionRoutes,
  contractFunctionSchemas,
} from '../modules/catalog/contract-functions/routes/index.ts';
import { contractRoutes } from '../modules/catalog/contracts/routes/index.ts';
import { itemTypeRoutes, itemTypeSchemas } from '../modules/catalog/item-types/routes/index.ts';
import { itemRoutes, itemSchemas } from '../modules/catalog/items/routes/index.ts';
import { metadataRoutes, metadataSchemas } from '../modules/catalog/metadata/routes/index.ts';
import { cardProviderWebhookRoute } from '../modules/payments/card-provider/routes/card-provider-webhook.ts';
import { cardProviderRoutes, cardProviderSchemas } from '../modules/payments/card-provider/routes/index.ts';
import {
  cryptoProviderRoutes,
  cryptoProviderSchemas,
  cryptoProviderWebhookRoutes,
} from '../modules/payments/crypto-provider/routes/index.ts';
import { ApiKey } from '../modules/platform/api-keys/api-keys.schemas.ts';
import { apiKeyRoutes } from '../modules/platform/api-keys/routes/index.ts';
import { MfaChallenge, Session } from '../modules/platform/auth/auth.schemas.ts';
import { authRoutes } from '../modules/platform/auth/routes/index.ts';
import {
  emailIntegrationRoutes,
  emailIntegrationSchemas,
} from '../modules/platform/email-integrations/routes/index.ts';
import {
  emailTemplateRoutes,
  emailTemplateSchemas,
} from '../modules/platform/email-templates/routes/index.ts';
import { mailRoutes } from '../modules/platform/mail/routes/index.ts';
import {
  marketingCampaignRoutes,
  marketingCampaignSchemas,
} from '../modules/platform/marketing-campaigns/routes/index.ts';
import { networkRoutes } from '../modules/platform/networks/routes/index.ts';
import { Organization, PayoutConfig } from '../modules/platform/organizations/organizations.schemas.ts';
import { organizationRoutes } from '../modules/platform/organizations/routes/index.ts';
import { roleRoutes } from '../modules/platform/roles/routes/index.ts';
import { transactionRoutes } from '../modules/platform/transactions/routes/index.ts';
import { Transaction } from '../modules/platform/transactions/transactions.schemas.ts';
import { userRoutes } from '../modules/platform/users/routes/index.ts';
import { User } from '../modules/platform/users/users.schemas.ts';
import { webhookRoutes, webhookSchemas } from '../modules/platform/webhooks/routes/index.ts';
import { emailClaimRoutes, emailClaimSchemas } from '../modules/sales/email-claims/routes/index.ts';
import { checkoutPage } from '../modules/sales/listings/pages/checkout.ts';
import { listingRoutes, listingSchemas } from '../modules/sales/listings/routes/index.ts';
import {
  purchaseIntentRoutes,
  purchaseIntentSchemas,
} from '../modules/sales/purchase-intents/routes/index.ts';
import { mintRequestRoutes, mintRequestSchemas } from '../modules/tokens/mint-requests/routes/index.ts';
import { mintVoucherRoutes } from '../modules/tokens/mint-vouchers/routes/index.ts';
import {
  transferRequestRoutes,
  transferRequestSchemas,
} from '../modules/tokens/transfer-requests/routes/index.ts';
import { claimPage } from '../web/pages/claim.ts';
import { landingPage } from '../web/pages/landing.ts';

/** Schemas shared by reference across operations; each becomes a named OpenAPI component. */
export const SHARED_SCHEMAS: TSchema[] = [
  ErrorBody,
  User,
  Organization,
  PayoutConfig,
  Session,
  MfaChallenge,
  ApiKey,
  Transaction,
  ...collectionSchemas,
  ...contractFunctionSchemas,
  ...itemTypeSchemas,
  ...itemSchemas,
  ...mintRequestSchemas,
  ...transferRequestSchemas,
  ...metadataSchemas,
  ...emailClaimSchemas,
  ...emailIntegrationSchemas,
  ...marketingCampaignSchemas,
  ...emailTemplateSchemas,
  ...webhookSchemas,
  ...listingSchemas,
  ...purchaseIntentSchemas,
  ...cardProviderSchemas,
  ...cryptoProviderSchemas,
];

export const ROUTES: RouteModule[] = [
  ...authRoutes,
  ...userRoutes,
  ...apiKeyRoutes,
  ...roleRoutes,
  ...organizationRoutes,
  ...networkRoutes,
  ...mailRoutes,
  ...emailIntegrationRoutes,
  ...transactionRoutes,
  ...contractRoutes,
  ...collectionRoutes,
  ...contractFunctionRoutes,
  ...itemTypeRoutes,
  ...itemRoutes,
  ...mintRequestRoutes,
  ...transferRequestRoutes,
  ...metadataRoutes,
  ...emailClaimRoutes,
  ...mintVoucherRoutes,
  ...marketingCampaignRoutes,
  ...emailTemplateRoutes,
  ...webhookRoutes,
  ...listingRoutes,
  ...purchaseIntentRoutes,
  ...cardProviderRoutes,
  ...cryptoProviderRoutes,
];

/** Routes of the webhooks scope (`/v1/webhooks/…`): provider events, on their raw bodies. */
export const WEBHOOK_ROUTES: RouteModule[] = [cardProviderWebhookRoute, ...cryptoProviderWebhookRoutes];

/** Server-rendered pages of the web scope (outside /v1). */
export const PAGES: RouteModule[] = [landingPage, claimPage, checkoutPage];

/** Every operation's example, keyed by operationId (added to the OpenAPI document when it is built). */
export { OPERATION_EXAMPLES } from './examples.ts';
