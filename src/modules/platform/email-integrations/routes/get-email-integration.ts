import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailIntegration, EmailIntegrationParams } from '../email-integrations.schemas.ts';
import { getEmailIntegration, toEmailIntegration } from '../email-integrations.service.ts';

export const getEmailIntegrationRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-integrations/:integration_id',
    {
      config: { access: needs('email_integrations:read') },
      schema: {
        operationId: 'getEmailIntegration',
        tags: ['Email integrations'],
        summary: 'Get an email integration (without its secret)',
        params: EmailIntegrationParams,
        response: { 200: Type.Ref(EmailIntegration) },
      },
    },
    async (request) =>
      toEmailIntegration(
        await getEmailIntegration(ctx.db, principalOf(request), request.params.integration_id),
      ),
  );
