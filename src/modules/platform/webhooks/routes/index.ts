import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { webhookSchemas as schemas } from '../webhooks.schemas.ts';
import { createWebhookRoute } from './create-webhook.ts';
import { deleteWebhookRoute } from './delete-webhook.ts';
import { editWebhookRoute } from './edit-webhook.ts';
import { getWebhookRoute } from './get-webhook.ts';
import { listWebhookDeliveriesRoute } from './list-webhook-deliveries.ts';
import { listWebhooksRoute } from './list-webhooks.ts';
import { retryWebhookDeliveryRoute } from './retry-webhook-delivery.ts';
import { rotateWebhookSecretRoute } from './rotate-webhook-secret.ts';
import { testWebhookRoute } from './test-webhook.ts';

export const webhookRoutes: RouteModule[] = [
  listWebhooksRoute,
  createWebhookRoute,
  getWebhookRoute,
  editWebhookRoute,
  rotateWebhookSecretRoute,
  testWebhookRoute,
  listWebhookDeliveriesRoute,
  retryWebhookDeliveryRoute,
  deleteWebhookRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const webhookSchemas: TSchema[] = schemas;
