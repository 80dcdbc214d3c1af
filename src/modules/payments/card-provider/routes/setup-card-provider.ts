import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { SetupBody, SetupResult } from '../card-provider.schemas.ts';
import { setupCardProvider } from '../card-provider.service.ts';

export const setupCardProviderRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/card-provider/setup',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'setupCardProvider',
        tags: ['Card provider'],
        summary: "Set up the organization's card-provider account: answers the onboarding link",
        description:
          "Creates the organization's Standard connected account on the platform account (unless it has one there), then an onboarding link to open in a browser; the provider sends the organization back to return_url. The platform account must be enabled for the organization (422 CARD_PROVIDER_NOT_READY); only connect_type STANDARD is supported (400); a connected account on another platform account is 409 INVALID_STATE (DISCONNECT it first). A provider failure is 502 UPSTREAM_FAILED.",
        body: SetupBody,
        response: { 201: SetupResult, ...errorResponses(404, 409, 422, 502) },
      },
    },
    async (request, reply) => {
      const result = await setupCardProvider(ctx.db, ctx, principalOf(request), request.body);
      return reply.code(201).send(result);
    },
  );
