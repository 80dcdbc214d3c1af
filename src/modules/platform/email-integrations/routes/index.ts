import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailIntegration } from '../email-integrations.schemas.ts';
import { createEmailIntegrationRoute } from './create-email-integration.ts';
import { deleteEmailIntegrationRoute } from './delete-email-integration.ts';
import { editEmailIntegrationRoute } from './edit-email-integration.ts';
import { getEmailIntegrationRoute } from './get-email-integration.ts';
import { listEmailIntegrationsRoute } from './list-email-integrations.ts';
import { testEmailIntegrationRoute } from './test-email-integration.ts';

export const emailIntegrationRoutes: RouteModule[] = [
  listEmailIntegrationsRoute,
  createEmailIntegrationRoute,
  getEmailIntegrationRoute,
  editEmailIntegrationRoute,
  testEmailIntegrationRoute,
  deleteEmailIntegrationRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const emailIntegrationSchemas: TSchema[] = [EmailIntegration];
