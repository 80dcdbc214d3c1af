import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CreatePlatformAccountBody, PlatformCardProviderAccount } from '../card-provider.schemas.ts';
import { createPlatformAccount, toPlatformAccount } from '../card-provider.service.ts';

export const createPlatformAccountRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/card-provider/platform-accounts',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'createPlatformCardProviderAccount',
        tags: ['Card provider'],
        summary: 'Add a platform card-provider (Stripe) account',
        description:
          "The keys must be the mode's (pk_test_/sk_test_ for TEST, pk_live_/sk_live_ for LIVE; 400 otherwise). secret_key and the webhook endpoint secrets (whsec_…) are stored encrypted and never returned. A name already used is 409 ALREADY_EXISTS.",
        body: CreatePlatformAccountBody,
        response: { 201: Type.Ref(PlatformCardProviderAccount), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const row = await ctx.db.transaction().execute((tx) => createPlatformAccount(tx, ctx, request.body));
      return reply.code(201).send(toPlatformAccount(row));
    },
  );
