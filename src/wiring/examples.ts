import type { OperationExample } from '../http/openapi-examples.ts';
import { collectionsExamples } from '../modules/catalog/collections/collections.examples.ts';
import { contractFunctionsExamples } from '../modules/catalog/contract-functions/contract-functions.examples.ts';
import { contractsExamples } from '../modules/catalog/contracts/contracts.examples.ts';
import { itemTypesExamples } from '../modules/catalog/item-types/item-types.examples.ts';
import { itemsExamples } from '../modules/catalog/items/items.examples.ts';
import { metadataExamples } from '../modules/catalog/metadata/metadata.examples.ts';
import { cardProviderExamples } from '../modules/payments/card-provider/card-provider.examples.ts';
import { cryptoProviderExamples } from '../modules/payments/crypto-provider/crypto-provider.examples.ts';
import { apiKeysExamples } from '../modules/platform/api-keys/api-keys.examples.ts';
import { authExamples } from '../modules/platform/auth/auth.examples.ts';
import { emailIntegrationsExamples } from '../modules/platform/email-integrations/email-integrations.examples.ts';
import { emailTemplatesExamples } from '../modules/platform/email-templates/email-templates.examples.ts';
import { mailExamples } from '../modules/platform/mail/mail.examples.ts';
import { marketingCampaignsExamples } from '../modules/platform/marketing-campaigns/marketing-campaigns.examples.ts';
import { networksExamples } from '../modules/platform/networks/networks.examples.ts';
import { organizationsExamples } from '../modules/platform/organizations/organizations.examples.ts';
import { rolesExamples } from '../modules/platform/roles/roles.examples.ts';
import { transactionsExamples } from '../modules/platform/transactions/transactions.examples.ts';
import { usersExamples } from '../modules/platform/users/users.examples.ts';
import { webhooksExamples } from '../modules/platform/webhooks/webhooks.examples.ts';
import { emailClaimsExamples } from '../modules/sales/email-claims/email-claims.examples.ts';
import { listingsExamples } from '../modules/sales/listings/listings.examples.ts';
import { purchaseIntentsExamples } from '../modules/sales/purchase-intents/purchase-intents.examples.ts';
import { mintRequestsExamples } from '../modules/tokens/mint-requests/mint-requests.examples.ts';
import { mintVouchersExamples } from '../modules/tokens/mint-vouchers/mint-vouchers.examples.ts';
import { transferRequestsExamples } from '../modules/tokens/transfer-requests/transfer-requests.examples.ts';

/**
 * Merges the modules' examples, one map keyed by operationId. An operationId given twice would
 * silently keep one of the two, so it stops the service at load time instead, naming it.
 */
function merge(...maps: Readonly<Record<string, OperationExample>>[]): Record<string, OperationExample> {
  const merged: Record<string, OperationExample> = {};
  for (const map of maps) {
    for (const [operationId, example] of Object.entries(map)) {
      if (Object.hasOwn(merged, operationId)) {
        throw new Error(`two modules give an OpenAPI example for operationId ${operationId}`);
      }
      merged[operationId] = example;
    }
  }
  return merged;
}

/** Every operation's example, keyed by operationId (added to the OpenAPI document when it is built). */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = merge(
  networksExamples,
  webhooksExamples,
  rolesExamples,
  organizationsExamples,
  transactionsExamples,
  marketingCampaignsExamples,
  mailExamples,
  emailIntegrationsExamples,
  emailTemplatesExamples,
  apiKeysExamples,
  usersExamples,
  authExamples,
  contractsExamples,
  collectionsExamples,
  contractFunctionsExamples,
  itemTypesExamples,
  itemsExamples,
  metadataExamples,
  mintVouchersExamples,
  mintRequestsExamples,
  transferRequestsExamples,
  listingsExamples,
  emailClaimsExamples,
  purchaseIntentsExamples,
  cardProviderExamples,
  cryptoProviderExamples,
);
