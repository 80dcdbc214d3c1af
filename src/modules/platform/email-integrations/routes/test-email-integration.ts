import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  EmailIntegrationParams,
  TestEmailIntegrationBody,
  TestEmailIntegrationResult,
} from '../email-integrations.schemas.ts';
import { testEmailIntegration } from '../email-integrations.service.ts';

export const testEmailIntegrationRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-integrations/:integration_id/test',
    {
      config: { access: needs('email_integrations:write') },
      schema: {
        operationId: 'testEmailIntegration',
        tags: ['Email integrations'],
        summary: 'Send a USER_TEST mail through the integration, now',
        description:
          "Sent at once (not through the outbox): 200 {delivered: true} when the provider took it, else 502 UPSTREAM_FAILED with the provider's reason, also kept as the integration's last_error. An inactive integration (CUSTOM_SMTP before its activation) is tested by platform admins only (403 otherwise).",
        params: EmailIntegrationParams,
        body: TestEmailIntegrationBody,
        response: { 200: TestEmailIntegrationResult, ...errorResponses(403, 502) },
      },
    },
    async (request) => {
      // No transaction: nothing is held while the provider answers.
      await testEmailIntegration(
        ctx.db,
        ctx,
        principalOf(request),
        request.params.integration_id,
        request.body.to,
      );
      return { delivered: true as const };
    },
  );
