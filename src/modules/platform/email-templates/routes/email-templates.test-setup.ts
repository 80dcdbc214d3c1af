import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Tenant, TestEnv } from '../../../../../test/harness.ts';

/**
 * What the email-templates test files share (email-templates-crud, email-templates-rendering
 * .test.ts): the requests their tests send. Each file has a database of its own (setupTest in its
 * `before`): no test depends on another file's rows.
 */

/** The requests, each on the file's environment as it is at the call (`env` is set in `before`). */
export function emailTemplateCalls(env: () => TestEnv) {
  const newTenant = () => env().createTenant();
  const templates = (tenant: Tenant, query: Record<string, string> = {}, token = tenant.admin.token) =>
    env().call('GET', '/v1/email-templates', { token, query });
  const write = (
    method: 'POST' | 'PATCH',
    tenant: Tenant,
    type: string,
    body: unknown,
    query: Record<string, string> = {},
    token = tenant.admin.token,
  ) => env().call(method, `/v1/email-templates/${type}`, { token, body, query });
  const campaignOf = async (
    tenant: Tenant,
    name = `c-${randomBytes(3).toString('hex')}`,
    emailFrom?: string,
  ) => {
    const response = await env().call('POST', '/v1/marketing-campaigns', {
      token: tenant.admin.token,
      body: { name, ...(emailFrom && { email_from: emailFrom }) },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id as string;
  };
  return { newTenant, templates, write, campaignOf };
}
