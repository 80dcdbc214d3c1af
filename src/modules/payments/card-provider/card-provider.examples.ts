import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

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

/** Card provider: the platform's Stripe account and an organization's connection to it. */
export const cardProviderExamples: Readonly<Record<string, OperationExample>> = {
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
