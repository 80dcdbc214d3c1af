import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CryptoProvider, PutCryptoProviderBody } from '../crypto-provider.schemas.ts';
import { putCryptoProvider } from '../crypto-provider.service.ts';

export const putCryptoProviderRoute: RouteModule = (app, ctx) =>
  app.put(
    '/v1/crypto-provider',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'putCryptoProvider',
        tags: ['Crypto provider'],
        summary: "Set the organization's crypto provider (Coinbase Business payment links)",
        description:
          "One per organization: a second PUT replaces the first. api_key_id and api_key_secret are a CDP API key with the ECDSA (ES256) signature algorithm; webhook_secret is the secret of the organization's webhook subscription for payment_link.payment.success, .failed and .expired, pointed at the webhook_url answered here. Secrets are stored encrypted and never returned.",
        body: PutCryptoProviderBody,
        response: { 200: Type.Ref(CryptoProvider) },
      },
    },
    async (request) =>
      ctx.db.transaction().execute((tx) => putCryptoProvider(tx, ctx, principalOf(request), request.body)),
  );
