import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import {
  EditEmailIntegrationBody,
  EmailIntegration,
  EmailIntegrationParams,
} from '../email-integrations.schemas.ts';
import { editEmailIntegration, toEmailIntegration } from '../email-integrations.service.ts';

export const editEmailIntegrationRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/email-integrations/:integration_id',
    {
      config: { access: needs('email_integrations:write') },
      schema: {
        operationId: 'editEmailIntegration',
        tags: ['Email integrations'],
        summary: 'Edit an email integration: config fields, and active (platform admins)',
        description:
          "config's fields merge into the current config and the result is checked as on create (400); the provider cannot change. active is the platform's to set (403 for anyone else); an organization admin who moves a CUSTOM_SMTP integration to another server (host, port, secure) makes it inactive until the platform activates it again.",
        params: EmailIntegrationParams,
        body: EditEmailIntegrationBody,
        response: { 200: Type.Ref(EmailIntegration) },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) =>
          editEmailIntegration(tx, ctx, principalOf(request), request.params.integration_id, request.body),
        );
      return toEmailIntegration(row);
    },
  );
