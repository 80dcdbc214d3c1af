import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

/** The organization's Mailgun integration. */
const emailIntegration = {
  id: ids.emailIntegration,
  organization_id: ids.organization,
  provider: 'API_MAIL_PROVIDER',
  config: {
    email_from: 'Northwind Studios <drops@northwind.example>',
    email_reply_to: 'support@northwind.example',
    domain: 'mg.northwind.example',
    region: 'EU',
  },
  active: true,
  last_error: null,
  last_error_at: null,
  created_at: '2026-11-22T16:20:31.205Z',
  updated_at: '2026-11-22T16:20:31.205Z',
};

/** Email integrations: the organization's own mail provider. */
export const emailIntegrationsExamples: Readonly<Record<string, OperationExample>> = {
  listEmailIntegrations: { response: page([emailIntegration]) },
  createEmailIntegration: {
    request: {
      provider: 'API_MAIL_PROVIDER',
      config: { ...emailIntegration.config, api_key: 'key-3f9a1c7e5b2d4f6a8c0e2b4d6f8a1c3e' },
    },
    response: emailIntegration,
  },
  getEmailIntegration: { params: { integration_id: ids.emailIntegration }, response: emailIntegration },
  editEmailIntegration: {
    params: { integration_id: ids.emailIntegration },
    request: { config: { email_reply_to: 'hello@northwind.example' } },
    response: {
      ...emailIntegration,
      config: { ...emailIntegration.config, email_reply_to: 'hello@northwind.example' },
      updated_at: '2026-11-23T08:12:55.940Z',
    },
  },
  deleteEmailIntegration: { params: { integration_id: ids.emailIntegration } },
  testEmailIntegration: {
    params: { integration_id: ids.emailIntegration },
    request: { to: 'ada@northwind.example' },
    response: { delivered: true },
  },
};
