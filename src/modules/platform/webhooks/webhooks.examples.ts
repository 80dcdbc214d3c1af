import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

const WEBHOOK_IDS = {
  webhook: '01a20650-0b1e-7c3f-9a55-3e1f6ad2c7b1',
  delivery: '01a20690-5c2d-7e48-8b31-7d6f0e9a4c22',
  event: '01a20688-2f4a-7b19-a6d3-51c8e2b7f903',
  testDelivery: '01a206a1-7e3b-7d52-9c14-2b8f4a6e1d05',
  testEvent: '01a206a1-7e3a-7f01-8e62-9d3c5b1a7f46',
} as const;

/** Shown once, at creation (Standard Webhooks: whsec_ and the base64 key). */
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const webhook = {
  id: WEBHOOK_IDS.webhook,
  organization_id: ids.organization,
  url: 'https://hooks.northwind.example/tokens',
  events: ['collection.deployed', 'item.minted', 'mint_request.completed', 'mint_request.failed'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  secret_rotated_at: null,
  created_at: '2026-11-22T11:00:00.000Z',
  updated_at: '2026-11-22T11:00:00.000Z',
};

const webhookDelivery = {
  id: WEBHOOK_IDS.delivery,
  webhook_id: WEBHOOK_IDS.webhook,
  event_id: WEBHOOK_IDS.event,
  event_type: 'mint_request.completed',
  status: 'SUCCEEDED',
  attempts: 2,
  response_status: 200,
  last_error: null,
  created_at: '2026-11-22T11:30:00.000Z',
  next_attempt_at: null,
  completed_at: '2026-11-22T11:30:05.000Z',
};

/** The organization's webhook: its events, secret and deliveries. */
export const webhooksExamples: Readonly<Record<string, OperationExample>> = {
  listWebhooks: { response: page([webhook]) },
  createWebhook: {
    request: { url: webhook.url, events: webhook.events },
    response: { ...webhook, secret: WEBHOOK_SECRET },
  },
  getWebhook: { params: { webhook_id: WEBHOOK_IDS.webhook }, response: webhook },
  editWebhook: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    request: { events: [...webhook.events, 'transfer_request.completed'] },
    response: {
      ...webhook,
      events: [...webhook.events, 'transfer_request.completed'],
      updated_at: '2026-11-22T11:05:00.000Z',
    },
  },
  deleteWebhook: { params: { webhook_id: WEBHOOK_IDS.webhook } },
  rotateWebhookSecret: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    response: {
      ...webhook,
      secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
      secret_rotated_at: '2026-11-23T09:00:00.000Z',
      updated_at: '2026-11-23T09:00:00.000Z',
    },
  },
  testWebhook: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    response: {
      ...webhookDelivery,
      id: WEBHOOK_IDS.testDelivery,
      event_id: WEBHOOK_IDS.testEvent,
      event_type: 'webhook.test',
      status: 'PENDING',
      attempts: 0,
      response_status: null,
      next_attempt_at: '2026-11-22T11:10:00.000Z',
      completed_at: null,
      created_at: '2026-11-22T11:10:00.000Z',
    },
  },
  listWebhookDeliveries: {
    params: { webhook_id: WEBHOOK_IDS.webhook },
    response: page([webhookDelivery]),
  },
  retryWebhookDelivery: {
    params: { webhook_id: WEBHOOK_IDS.webhook, delivery_id: WEBHOOK_IDS.delivery },
    response: {
      ...webhookDelivery,
      status: 'PENDING',
      next_attempt_at: '2026-11-22T12:00:00.000Z',
      completed_at: null,
    },
  },
};
