import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CreateEmailIntegrationBody, EmailIntegration } from '../email-integrations.schemas.ts';
import { createEmailIntegration, toEmailIntegration } from '../email-integrations.service.ts';

export const createEmailIntegrationRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-integrations',
    {
      config: { access: needs('email_integrations:write') },
      schema: {
        operationId: 'createEmailIntegration',
        tags: ['Email integrations'],
        summary: "Set up the organization's mail provider (one per organization)",
        description:
          "A second integration of the organization is 409 EMAIL_INTEGRATION_EXISTS (delete the first). API_MAIL_PROVIDER (Mailgun) and CLOUD_MAIL_PROVIDER (Amazon SES) start active; CUSTOM_SMTP starts inactive until a platform admin activates it. The secret (api_key, secret_access_key, password) is stored encrypted and never returned. organization_id (default the caller's organization) may name another organization for platform admins only.",
        body: CreateEmailIntegrationBody,
        response: { 201: Type.Ref(EmailIntegration), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => createEmailIntegration(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send(toEmailIntegration(row));
    },
  );
