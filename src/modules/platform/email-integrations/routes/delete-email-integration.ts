import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailIntegrationParams } from '../email-integrations.schemas.ts';
import { deleteEmailIntegration } from '../email-integrations.service.ts';

export const deleteEmailIntegrationRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/email-integrations/:integration_id',
    {
      config: { access: needs('email_integrations:write') },
      schema: {
        operationId: 'deleteEmailIntegration',
        tags: ['Email integrations'],
        summary: "Delete an email integration: the organization's mail goes through the platform's again",
        params: EmailIntegrationParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await ctx.db
        .transaction()
        .execute((tx) => deleteEmailIntegration(tx, principalOf(request), request.params.integration_id));
      return reply.code(204).send(null);
    },
  );
