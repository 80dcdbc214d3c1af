import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { deleteCryptoProvider } from '../crypto-provider.service.ts';

export const deleteCryptoProviderRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/crypto-provider',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'deleteCryptoProvider',
        tags: ['Crypto provider'],
        summary: "Forget the organization's crypto provider: its CRYPTO_PROVIDER sales stop",
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await ctx.db.transaction().execute((tx) => deleteCryptoProvider(tx, principalOf(request)));
      return reply.code(204).send(null);
    },
  );
