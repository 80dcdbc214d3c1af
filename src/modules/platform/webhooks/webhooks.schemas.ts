import { type Static, Type } from '@sinclair/typebox';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Nullable, StringEnum, Uuid } from '../../../http/schemas.ts';

export const WebhookEventType = StringEnum(WEBHOOK_EVENT_TYPES, {
  description: 'One of the event types the service emits',
});
export const WebhookDeliveryStatus = StringEnum(WEBHOOK_DELIVERY_STATUSES);

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'https (http only where private URLs are allowed); never a private, loopback or link-local address',
});
const Events = Type.Array(WebhookEventType, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types delivered to this endpoint',
});

const webhookProperties = {
  id: Uuid,
  organization_id: Uuid,
  url: Type.String(),
  events: Type.Array(WebhookEventType),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(
    Type.String({ description: 'Why the service disabled the endpoint (failing for 5 days), if it did' }),
  ),
  disabled_at: Nullable(DateTime),
  secret_rotated_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
};

export const Webhook = Type.Object(webhookProperties, { $id: 'Webhook', title: 'Webhook' });
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  {
    ...webhookProperties,
    secret: Type.String({
      description: 'whsec_ and the base64 signing key (Standard Webhooks): shown once, never again',
    }),
  },
  { title: 'WebhookWithSecret' },
);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, enabled: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const EditWebhookBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type EditWebhookBody = Static<typeof EditWebhookBody>;

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    webhook_id: Uuid,
    event_id: Type.String({ description: 'The webhook-id header of every attempt of this delivery' }),
    event_type: WebhookEventType,
    status: WebhookDeliveryStatus,
    attempts: Type.Integer({ minimum: 0 }),
    response_status: Nullable(Type.Integer({ description: 'The status of the last answer, if any' })),
    last_error: Nullable(Type.String()),
    created_at: DateTime,
    next_attempt_at: Nullable(DateTime),
    completed_at: Nullable(DateTime),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const ListWebhooksQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});

export const ListDeliveriesQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    status: Type.Optional(
      Type.Array(WebhookDeliveryStatus, { maxItems: 4, description: 'Repeated: any of these statuses' }),
    ),
    event_type: Type.Optional(
      Type.Array(WebhookEventType, {
        maxItems: WEBHOOK_EVENT_TYPES.length,
        description: 'Repeated: any of these event types',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookParams = Type.Object({ webhook_id: Uuid }, { additionalProperties: false });
export const DeliveryParams = Type.Object(
  { webhook_id: Uuid, delivery_id: Uuid },
  { additionalProperties: false },
);

export const webhookSchemas = [Webhook, WebhookDelivery];
