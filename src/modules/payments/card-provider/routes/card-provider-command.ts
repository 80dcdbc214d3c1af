import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CardProviderStatus, CommandBody } from '../card-provider.schemas.ts';
import { runCardProviderCommand } from '../card-provider.service.ts';

export const cardProviderCommandRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/card-provider/commands',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'sendCardProviderCommand',
        tags: ['Card provider'],
        summary: "Refresh or disconnect the organization's card-provider account",
        description:
          "REFRESH reads the connected account's charges_enabled and details_submitted from the provider (422 CARD_PROVIDER_NOT_READY without a connected account; 502 UPSTREAM_FAILED when the provider fails). DISCONNECT forgets the connected account (the account itself stays at the provider); card sales stop until it is set up again. Answers the status.",
        body: CommandBody,
        response: { 201: Type.Ref(CardProviderStatus), ...errorResponses(422, 502) },
      },
    },
    async (request, reply) => {
      const status = await runCardProviderCommand(ctx.db, ctx, principalOf(request), request.body.command);
      return reply.code(201).send(status);
    },
  );
