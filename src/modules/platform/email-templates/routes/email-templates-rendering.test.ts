import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';
import type { MailboxMessageRow } from '../../../../db/schema.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { platformMailTransports } from '../../../../providers/mail/transports.ts';
import { queueMail } from '../../mail/mail.service.ts';
import { deliverOutboxMail } from '../../mail/mail-delivery.service.ts';
import { emailTemplateCalls } from './email-templates.test-setup.ts';

const CLAIM_VARIABLES = {
  claim_url: 'http://tokens.test/claim?token=abc',
  item_name: 'Golden Ticket',
  item_image: '',
  collection_name: 'Tickets',
  organization_name: 'Acme',
  expiration: '2026-12-31T00:00:00.000Z',
};

/**
 * The mail templates make: which template a mail uses, its sender and escaping, the variables of
 * each type and the test mail (the templates themselves: email-templates-crud.test.ts).
 */
describe('email templates', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
  });
  after(() => env.close());

  const { newTenant, write, campaignOf } = emailTemplateCalls(() => env);

  /** Queues a mail as any module does, delivers it now (no worker here) and reads the mailbox. */
  const mailOf = async (
    tenant: Tenant,
    input: {
      campaignId?: string | null;
      templateType?: 'REDEEM_NFT' | 'USER_INVITE';
      variables?: Record<string, string>;
    },
  ) => {
    const to = `r-${randomBytes(4).toString('hex')}@example.test`;
    const id = await queueMail(env.database.db, {
      organizationId: tenant.organizationId,
      campaignId: input.campaignId ?? null,
      templateType: input.templateType ?? 'REDEEM_NFT',
      to,
      variables: input.variables ?? CLAIM_VARIABLES,
    });
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, id, { number: 1, max: 10 }), 'sent');
    const outbox = await env.database.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return { message: await mailboxMessage(to), outbox };
  };
  const mailboxMessage = async (to: string): Promise<MailboxMessageRow> => {
    const response = await env.call('GET', '/v1/mailbox', { token: env.platformAdmin.token, query: { to } });
    assert.equal(response.statusCode, 200, response.body);
    const results = response.json().results;
    assert.equal(results.length, 1, response.body);
    return results[0];
  };

  describe('the mail that goes out', () => {
    it('uses the campaign template, else the organization one, else the default, from the campaign sender', async () => {
      const tenant = await newTenant();
      const campaignId = await campaignOf(tenant, 'Fallback', 'Spring Drops <drops@acme.test>');
      const q = { campaign_id: campaignId };

      const byDefault = await mailOf(tenant, { campaignId });
      assert.equal(byDefault.message.subject, 'Acme sent you Golden Ticket');
      assert.equal(byDefault.outbox.campaign_id, campaignId);
      assert.equal(byDefault.outbox.sender, 'Spring Drops <drops@acme.test>');

      await write('POST', tenant, 'REDEEM_NFT', {
        subject: 'Org: {{item_name}}',
        html: '<p>org {{claim_url}}</p>',
      });
      assert.equal((await mailOf(tenant, { campaignId })).message.subject, 'Org: Golden Ticket');

      await write(
        'POST',
        tenant,
        'REDEEM_NFT',
        { subject: 'Campaign: {{item_name}}', html: '<p>campaign</p>' },
        q,
      );
      const byCampaign = await mailOf(tenant, { campaignId });
      assert.equal(byCampaign.message.subject, 'Campaign: Golden Ticket');
      assert.equal(byCampaign.message.html, '<p>campaign</p>');
      // Mail of no campaign, or of another template type, does not use the campaign's.
      assert.equal((await mailOf(tenant, {})).message.subject, 'Org: Golden Ticket');
      const other = await newTenant();
      assert.equal(
        (await mailOf(other, { campaignId })).message.subject,
        'Acme sent you Golden Ticket',
        "another organization's campaign is none",
      );
      assert.equal((await mailOf(other, { campaignId })).outbox.sender, null);
    });

    it('sends from the campaign: a display name goes before the transport address', async () => {
      const tenant = await newTenant();
      const sent: { from: string }[] = [];
      const original = env.ctx.mail;
      (env.ctx as { mail: typeof original }).mail = platformMailTransports(
        { name: 'spy', send: async (mail) => void sent.push(mail), close: async () => {} },
        'Token Issuance Service <no-reply@tokens.test>',
      );
      try {
        const labelled = await campaignOf(tenant, 'Labelled', 'Acme, "Drops"');
        const id = await queueMail(env.database.db, {
          organizationId: tenant.organizationId,
          campaignId: labelled,
          templateType: 'REDEEM_NFT',
          to: 'x@example.test',
          variables: CLAIM_VARIABLES,
        });
        await deliverOutboxMail(env.database.db, env.ctx, id, { number: 1, max: 10 });
        assert.equal(sent[0]?.from, '"Acme, \\"Drops\\"" <no-reply@tokens.test>');
      } finally {
        (env.ctx as { mail: typeof original }).mail = original;
      }
    });

    it('escapes a <script> in a variable in the HTML of a custom template, and derives its text part', async () => {
      const tenant = await newTenant();
      await write('POST', tenant, 'REDEEM_NFT', {
        subject: '{{item_name}}',
        html: '<h1>Hello</h1><p>You got <b>{{item_name}}</b>.</p><p><a href="{{claim_url}}">Claim &amp; enjoy</a></p>',
      });
      const { message } = await mailOf(tenant, {
        variables: { ...CLAIM_VARIABLES, item_name: '<script>alert(1)</script>' },
      });
      assert.equal(message.subject, '<script>alert(1)</script>', 'the subject is not HTML');
      assert.ok(!message.html.includes('<script>'), message.html);
      assert.ok(message.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), message.html);
      assert.equal(
        message.text,
        'Hello\n\nYou got <script>alert(1)</script>.\n\nClaim & enjoy (http://tokens.test/claim?token=abc)',
      );
    });

    it('gives templates no access to prototypes', async () => {
      const tenant = await newTenant();
      const created = await write('POST', tenant, 'REDEEM_NFT', {
        subject: '[{{constructor.name}}][{{__proto__}}][{{item_name.constructor.name}}]',
        html: '<p>[{{constructor}}][{{__proto__.constructor.name}}][{{#with item_name}}{{constructor.name}}{{/with}}][{{toString}}]</p>',
      });
      assert.equal(created.statusCode, 201, created.body);
      const { message } = await mailOf(tenant, {});
      assert.equal(message.subject, '[][][]');
      assert.equal(message.html, '<p>[][][][]</p>');
    });

    it('deleting a campaign deletes its templates; its claims and mail fall back to the organization template', async () => {
      const tenant = await newTenant();
      const campaignId = await campaignOf(tenant);
      await write('POST', tenant, 'REDEEM_NFT', { subject: 'Org', html: '<p>o</p>' });
      for (const type of ['REDEEM_NFT', 'CLAIM_PINCODE']) {
        await write(
          'POST',
          tenant,
          type,
          { subject: 'Campaign', html: '<p>c</p>' },
          { campaign_id: campaignId },
        );
      }
      const claimId = await insertClaim(tenant.organizationId, campaignId);
      assert.equal((await mailOf(tenant, { campaignId })).message.subject, 'Campaign');

      const deleted = await env.call('DELETE', `/v1/marketing-campaigns/${campaignId}`, {
        token: tenant.admin.token,
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
      const left = await env.database.db
        .selectFrom('email_templates')
        .select(['template_type', 'campaign_id'])
        .where('organization_id', '=', tenant.organizationId)
        .execute();
      assert.deepEqual(left, [{ template_type: 'REDEEM_NFT', campaign_id: null }]);
      const claim = await env.database.db
        .selectFrom('email_claims')
        .select('campaign_id')
        .where('id', '=', claimId)
        .executeTakeFirstOrThrow();
      assert.equal(claim.campaign_id, null);
      const after = await mailOf(tenant, { campaignId });
      assert.equal(after.message.subject, 'Org');
      assert.equal(after.outbox.campaign_id, null);
      assert.equal(after.outbox.sender, null);
    });

    it('renders the invitation of a new user with invite_url from the organization template', async () => {
      const tenant = await newTenant();
      await write('POST', tenant, 'USER_INVITE', {
        subject: 'Join {{organization_name}}',
        html: '<p><a href="{{invite_url}}">Join</a> as {{email}}</p>',
      });
      const email = `invitee-${randomBytes(3).toString('hex')}@example.test`;
      const invited = await env.call('POST', '/v1/users', {
        token: tenant.admin.token,
        body: { email, role_id: '0190f1c0-0000-7000-8000-000000000003' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const row = await env.database.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('to_address', '=', email)
        .executeTakeFirstOrThrow();
      assert.match(row.subject, /^Join Org /);
      assert.match(
        row.text,
        /^Join \(http:\/\/tokens\.test\/verify\?token=[^&]+&email=invitee-[0-9a-f]+%40example\.test\) as invitee-/,
      );
    });
  });

  describe('variables: GET /v1/email-templates/{template_type}/variables', () => {
    const EXPECTED: Record<string, string[]> = {
      USER_INVITE: ['organization_name', 'invite_url', 'email'],
      FORGOT_PASSWORD_RESET: ['reset_url', 'email'],
      REDEEM_NFT: [
        'claim_url',
        'item_name',
        'item_image',
        'collection_name',
        'organization_name',
        'expiration',
      ],
      CLAIM_PINCODE: ['pin_code', 'item_name', 'expires_in_minutes'],
      CLAIMED_NFT: ['item_name', 'item_image', 'to_address', 'tx_hash', 'collection_name'],
      USER_TEST: ['organization_name'],
    };

    it('lists the variables of each type (docs/api.md#templates) as {name, template_type, default_value, value}', async () => {
      const tenant = await newTenant();
      for (const [type, names] of Object.entries(EXPECTED)) {
        const response = await env.call('GET', `/v1/email-templates/${type}/variables`, {
          token: tenant.member.token,
        });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        assert.equal(page.total_results, names.length);
        assert.deepEqual(
          page.results.map((v: { name: string }) => v.name),
          names,
        );
        for (const variable of page.results) {
          assert.deepEqual(Object.keys(variable).sort(), ['default_value', 'name', 'template_type', 'value']);
          assert.equal(variable.template_type, type);
          assert.equal(typeof variable.default_value, 'string');
          assert.equal(variable.value, null);
        }
      }
      const orgName = (
        await env.database.db
          .selectFrom('organizations')
          .select('name')
          .where('id', '=', tenant.organizationId)
          .executeTakeFirstOrThrow()
      ).name;
      const test = await env.call('GET', '/v1/email-templates/USER_TEST/variables', {
        token: tenant.admin.token,
      });
      assert.equal(test.json().results[0].default_value, orgName);
      const paged = await env.call('GET', '/v1/email-templates/REDEEM_NFT/variables', {
        token: tenant.admin.token,
        query: { limit: '4' },
      });
      const rest = await env.call('GET', '/v1/email-templates/REDEEM_NFT/variables', {
        token: tenant.admin.token,
        query: { limit: '4', cursor: paged.json().cursor },
      });
      assert.deepEqual(
        rest.json().results.map((v: { name: string }) => v.name),
        ['organization_name', 'expiration'],
      );
      assertError(
        await env.call('GET', '/v1/email-templates/CLAIM_PINCODE/variables', {
          token: tenant.admin.token,
          query: { cursor: paged.json().cursor },
        }),
        400,
        'INVALID_CURSOR',
      );
    });
  });

  describe('test mail: POST /v1/email-templates/{template_type}/test', () => {
    it('mails the caller the template rendered with the given values and defaults for the rest (200)', async () => {
      const tenant = await newTenant();
      const response = await env.call('POST', '/v1/email-templates/REDEEM_NFT/test', {
        token: tenant.admin.token,
        body: {
          subject: 'Test: {{item_name}} from {{collection_name}}',
          html: '<p>{{item_name}} / {{collection_name}} / <a href="{{claim_url}}">claim</a> / {{organization_name}}</p>',
          variables: [
            { name: 'item_name', value: '<b>Custom</b>' },
            { name: 'collection_name', value: null, template_type: 'REDEEM_NFT', default_value: 'x' },
            { name: 'claim_url', value: 'https://x.test/c' },
          ],
        },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { delivered: true, to: tenant.admin.user.email });
      const message = await mailboxMessage(tenant.admin.user.email);
      assert.equal(message.subject, 'Test: <b>Custom</b> from Golden Tickets');
      assert.ok(
        message.html.startsWith(
          '<p>&lt;b&gt;Custom&lt;/b&gt; / Golden Tickets / <a href="https://x.test/c">',
        ),
        message.html,
      );
      assert.match(
        message.text,
        /^<b>Custom<\/b> \/ Golden Tickets \/ claim \(https:\/\/x\.test\/c\) \/ Org /,
      );
      // Nothing was stored as a template.
      const got = await env.call('GET', '/v1/email-templates/REDEEM_NFT', { token: tenant.admin.token });
      assert.equal(got.json().origin_type, 'PLATFORM_DEFAULT');
    });

    it('refuses a template that does not compile (400 naming the error) and an ORG_MEMBER (403)', async () => {
      const tenant = await newTenant();
      const error = assertFields(
        await env.call('POST', '/v1/email-templates/USER_TEST/test', {
          token: tenant.admin.token,
          body: { subject: 'ok', html: '<p>{{#if}}</p>', variables: [] },
        }),
        ['/html'],
      );
      assert.match(error.fields![0]!.message, /Parse error/);
      assertError(
        await env.call('POST', '/v1/email-templates/USER_TEST/test', {
          token: tenant.member.token,
          body: { subject: 'ok', html: '<p>x</p>', variables: [] },
        }),
        403,
        'FORBIDDEN',
      );
      assertFields(
        await env.call('POST', '/v1/email-templates/USER_TEST/test', {
          token: tenant.admin.token,
          body: { subject: 'ok', html: '<p>x</p>' },
        }),
        ['/variables'],
      );
    });

    it('answers 502 UPSTREAM_FAILED with the reason when the provider refuses the mail', async () => {
      const tenant = await newTenant();
      const original = env.ctx.mail;
      (env.ctx as { mail: typeof original }).mail = platformMailTransports(
        {
          name: 'refusing',
          send: async () => {
            throw new Error('550 5.7.1 sender not allowed');
          },
          close: async () => {},
        },
        'x@tokens.test',
      );
      try {
        const error = assertError(
          await env.call('POST', '/v1/email-templates/USER_TEST/test', {
            token: tenant.admin.token,
            body: { subject: 'ok', html: '<p>x</p>', variables: [] },
          }),
          502,
          'UPSTREAM_FAILED',
        );
        assert.match(error.detail, /550 5\.7\.1 sender not allowed/);
      } finally {
        (env.ctx as { mail: typeof original }).mail = original;
      }
    });
  });

  /** An email claim naming the campaign, written directly (the claims module has its own tests). */
  async function insertClaim(organizationId: string, campaignId: string): Promise<string> {
    const collection = await insertCollection(env.database.db, { organizationId });
    const item = await env.database.db
      .insertInto('items')
      .values({
        id: uuidv7(),
        organization_id: organizationId,
        collection_id: collection.id,
        attributes: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const claim = await env.database.db
      .insertInto('email_claims')
      .values({
        id: uuidv7(),
        organization_id: organizationId,
        collection_id: collection.id,
        item_id: item.id,
        email: 'claimer@example.test',
        quantity: '1',
        campaign_id: campaignId,
        token_hash: randomBytes(32),
        expiration: new Date(Date.now() + 86_400_000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return claim.id;
  }
});
