import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailIntegration, ListEmailIntegrationsQuery } from '../email-integrations.schemas.ts';
import { listEmailIntegrations, toEmailIntegration } from '../email-integrations.service.ts';

export const listEmailIntegrationsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-integrations',
    {
      config: { access: needs('email_integrations:read') },
      schema: {
        operationId: 'listEmailIntegrations',
        tags: ['Email integrations'],
        summary: 'List email integrations',
        description:
          "provider filters. Without organization_id a platform admin gets every organization's integrations and anyone else their own organization's. Secrets are never returned.",
        querystring: ListEmailIntegrationsQuery,
        response: { 200: Page(Type.Ref(EmailIntegration), 'EmailIntegrationPage') },
      },
    },
    async (request) => {
      const { organization_id, provider, ...page } = request.query;
      const result = await listEmailIntegrations(ctx.db, principalOf(request), page, {
        organizationId: organization_id,
        provider,
      });
      return { ...result, results: result.results.map(toEmailIntegration) };
    },
  );
