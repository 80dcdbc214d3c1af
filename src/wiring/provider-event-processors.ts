import { processCardEvent } from '../modules/payments/card-provider/card-events.ts';
import { processCryptoEvent } from '../modules/payments/crypto-provider/crypto-events.ts';
import type { ProviderEventProcessor } from '../modules/platform/provider-events/provider-events.service.ts';

/**
 * What each payment provider's module does with its verified events, by the webhook they came
 * through (`card-provider`, `crypto-provider`): the inbox and its retry job call these.
 */
export const providerEventProcessors: Partial<
  Record<'card-provider' | 'crypto-provider', ProviderEventProcessor>
> = {
  'card-provider': processCardEvent,
  'crypto-provider': processCryptoEvent,
};
