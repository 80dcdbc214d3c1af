import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CryptoProvider } from '../crypto-provider.schemas.ts';
import { getCryptoProvider } from '../crypto-provider.service.ts';

export const getCryptoProviderRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/crypto-provider',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'getCryptoProvider',
        tags: ['Crypto provider'],
        summary: "Whether the organization's crypto provider is set, its network and webhook URL",
        response: { 200: Type.Ref(CryptoProvider) },
      },
    },
    async (request) => getCryptoProvider(ctx.db, ctx, principalOf(request)),
  );
