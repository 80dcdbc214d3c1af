import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailTemplate, TemplateVariable } from '../email-templates.schemas.ts';
import { createEmailTemplateRoute } from './create-email-template.ts';
import { deleteEmailTemplateRoute } from './delete-email-template.ts';
import { editEmailTemplateRoute } from './edit-email-template.ts';
import { getEmailTemplateRoute } from './get-email-template.ts';
import { listEmailTemplateVariablesRoute } from './list-email-template-variables.ts';
import { listEmailTemplatesRoute } from './list-email-templates.ts';
import { testEmailTemplateRoute } from './test-email-template.ts';

export const emailTemplateRoutes: RouteModule[] = [
  listEmailTemplatesRoute,
  getEmailTemplateRoute,
  createEmailTemplateRoute,
  editEmailTemplateRoute,
  deleteEmailTemplateRoute,
  testEmailTemplateRoute,
  listEmailTemplateVariablesRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const emailTemplateSchemas: TSchema[] = [EmailTemplate, TemplateVariable];
