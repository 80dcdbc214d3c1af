import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { emailTemplateCalls } from './email-templates.test-setup.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';
const ALL_TYPES = [
  'USER_INVITE',
  'FORGOT_PASSWORD_RESET',
  'REDEEM_NFT',
  'CLAIM_PINCODE',
  'CLAIMED_NFT',
  'USER_TEST',
];

/**
 * The templates an organization keeps, of its own and of its campaigns: list, get, create, edit,
 * revert (the mail they make: email-templates-rendering.test.ts).
 */
describe('email templates', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  const { newTenant, templates, write, campaignOf } = emailTemplateCalls(() => env);

  describe('list and get', () => {
    it('lists all six types as PLATFORM_DEFAULT in a page envelope, with the default subject and HTML', async () => {
      const tenant = await newTenant();
      const response = await templates(tenant, {}, tenant.member.token);
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json();
      assert.deepEqual(Object.keys(page).sort(), ['cursor', 'has_more', 'results', 'total_results']);
      assert.equal(page.total_results, 6);
      assert.deepEqual(
        page.results.map((t: { template_type: string }) => t.template_type),
        ALL_TYPES,
      );
      for (const template of page.results) {
        assert.deepEqual(Object.keys(template).sort(), [
          'editor_embed_design_json',
          'html',
          'origin_type',
          'subject',
          'template_type',
        ]);
        assert.equal(template.origin_type, 'PLATFORM_DEFAULT');
        assert.equal(template.editor_embed_design_json, null);
      }
      const invite = page.results[0];
      assert.equal(invite.subject, 'You are invited to {{organization_name}}');
      assert.ok(
        invite.html.includes('{{invite_url}}'),
        'USER_INVITE uses invite_url (docs/api.md#templates)',
      );
    });

    it('pages the list with limit and cursor, and reverses it with order_direction', async () => {
      const tenant = await newTenant();
      const first = await templates(tenant, { limit: '4' });
      assert.equal(first.json().results.length, 4);
      assert.equal(first.json().has_more, true);
      const second = await templates(tenant, { limit: '4', cursor: first.json().cursor });
      assert.deepEqual(
        second.json().results.map((t: { template_type: string }) => t.template_type),
        ['CLAIMED_NFT', 'USER_TEST'],
      );
      assert.equal(second.json().cursor, null);
      const desc = await templates(tenant, { order_direction: 'DESC' });
      assert.deepEqual(
        desc.json().results.map((t: { template_type: string }) => t.template_type),
        [...ALL_TYPES].reverse(),
      );
    });

    it('gets one type; an unknown type is 400', async () => {
      const tenant = await newTenant();
      const got = await env.call('GET', '/v1/email-templates/CLAIM_PINCODE', { token: tenant.member.token });
      assert.equal(got.statusCode, 200, got.body);
      assert.equal(got.json().template_type, 'CLAIM_PINCODE');
      assert.equal(got.json().origin_type, 'PLATFORM_DEFAULT');
      const error = assertError(
        await env.call('GET', '/v1/email-templates/NEWSLETTER', { token: tenant.admin.token }),
        400,
        'VALIDATION_FAILED',
      );
      assert.ok(
        error.fields?.some((f) => f.path === 'params:/template_type'),
        JSON.stringify(error),
      );
    });
  });

  describe('create, edit, revert', () => {
    it('creates the organization version (201), which lists as ORGANIZATION_CUSTOM; a second create is 409', async () => {
      const tenant = await newTenant();
      const body = {
        subject: 'Claim {{item_name}}',
        html: '<p>Hi! <a href="{{claim_url}}">Claim {{item_name}}</a></p>',
        editor_embed_design_json: { body: { rows: [] } },
      };
      const created = await write('POST', tenant, 'REDEEM_NFT', body);
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json(), {
        template_type: 'REDEEM_NFT',
        origin_type: 'ORGANIZATION_CUSTOM',
        ...body,
      });
      const listed = (await templates(tenant)).json().results;
      assert.deepEqual(
        listed.map(
          (t: { template_type: string; origin_type: string }) => `${t.template_type}:${t.origin_type}`,
        ),
        ALL_TYPES.map((t) => `${t}:${t === 'REDEEM_NFT' ? 'ORGANIZATION_CUSTOM' : 'PLATFORM_DEFAULT'}`),
      );
      assertError(await write('POST', tenant, 'REDEEM_NFT', body), 409, 'ALREADY_EXISTS');
      // Another organization still has the default.
      const other = await env.call('GET', '/v1/email-templates/REDEEM_NFT', { token: tenant.stranger.token });
      assert.equal(other.json().origin_type, 'PLATFORM_DEFAULT');
    });

    it('answers one 201 and 409s to concurrent creates of the same type', async () => {
      const tenant = await newTenant();
      const results = await Promise.all(
        [1, 2, 3].map(() => write('POST', tenant, 'USER_TEST', { subject: 'Test', html: '<p>t</p>' })),
      );
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409]);
    });

    it('edits the organization version (keeping the design JSON when left out); editing a default is 404', async () => {
      const tenant = await newTenant();
      assertError(
        await write('PATCH', tenant, 'CLAIMED_NFT', { subject: 's', html: '<p>h</p>' }),
        404,
        'NOT_FOUND',
      );
      await write('POST', tenant, 'CLAIMED_NFT', {
        subject: 's1',
        html: '<p>h1</p>',
        editor_embed_design_json: { v: 1 },
      });
      const edited = await write('PATCH', tenant, 'CLAIMED_NFT', {
        subject: 's2 {{item_name}}',
        html: '<p>h2</p>',
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.deepEqual(edited.json(), {
        template_type: 'CLAIMED_NFT',
        subject: 's2 {{item_name}}',
        html: '<p>h2</p>',
        origin_type: 'ORGANIZATION_CUSTOM',
        editor_embed_design_json: { v: 1 },
      });
      const cleared = await write('PATCH', tenant, 'CLAIMED_NFT', {
        subject: 's3',
        html: '<p>h3</p>',
        editor_embed_design_json: null,
      });
      assert.equal(cleared.json().editor_embed_design_json, null);
      assertError(
        await write(
          'PATCH',
          tenant,
          'CLAIMED_NFT',
          { subject: 's', html: '<p>h</p>' },
          {},
          tenant.member.token,
        ),
        403,
        'FORBIDDEN',
      );
    });

    it('reverts to the default with DELETE (204, also when there is nothing to revert)', async () => {
      const tenant = await newTenant();
      await write('POST', tenant, 'CLAIM_PINCODE', {
        subject: 'PIN {{pin_code}}',
        html: '<p>{{pin_code}}</p>',
      });
      const reverted = await env.call('DELETE', '/v1/email-templates/CLAIM_PINCODE', {
        token: tenant.admin.token,
      });
      assert.equal(reverted.statusCode, 204, reverted.body);
      const got = await env.call('GET', '/v1/email-templates/CLAIM_PINCODE', { token: tenant.admin.token });
      assert.equal(got.json().origin_type, 'PLATFORM_DEFAULT');
      assert.equal(got.json().subject, 'Your code to claim {{item_name}}: {{pin_code}}');
      const again = await env.call('DELETE', '/v1/email-templates/CLAIM_PINCODE', {
        token: tenant.admin.token,
      });
      assert.equal(again.statusCode, 204);
      // And it can be created again.
      assert.equal(
        (await write('POST', tenant, 'CLAIM_PINCODE', { subject: 'x', html: '<p>x</p>' })).statusCode,
        201,
      );
    });

    it('refuses a template that does not compile, naming the error under /html or /subject', async () => {
      const tenant = await newTenant();
      const valid = { subject: 'Valid', html: '<p>valid</p>' };
      assert.equal((await write('POST', tenant, 'CLAIMED_NFT', valid)).statusCode, 201);
      const cases: [unknown, string, RegExp][] = [
        [{ subject: 'ok', html: '<p>{{#if item_name}}unclosed</p>' }, '/html', /Parse error on line 1/],
        [{ subject: 'Hi {{item_name', html: '<p>ok</p>' }, '/subject', /Parse error/],
        [{ subject: 'ok', html: '<p>{{shout item_name}}</p>' }, '/html', /unknown helper shout/],
        [{ subject: 'ok', html: '<p>{{> footer}}</p>' }, '/html', /partials are not supported/],
        [{ subject: 'ok', html: '<p>{{{item_name}}}</p>' }, '/html', /unescaped output/],
        [{ subject: 'ok', html: '<p>{{#each}}x{{/each}}</p>' }, '/html', /Must pass iterator to #each/],
        [{ subject: '{{lookup this "x"}}', html: '<p>ok</p>' }, '/subject', /unknown helper lookup/],
      ];
      for (const [body, path, message] of cases) {
        for (const [method, type] of [
          ['POST', 'REDEEM_NFT'],
          ['PATCH', 'CLAIMED_NFT'],
        ] as const) {
          const error = assertFields(await write(method, tenant, type, body), [path]);
          assert.match(error.fields![0]!.message, message, JSON.stringify(body));
          assert.match(error.detail, message);
        }
      }
      const both = assertFields(
        await write('POST', tenant, 'REDEEM_NFT', { subject: '{{#if}}', html: '{{/x}}' }),
        ['/subject', '/html'],
      );
      assert.equal(both.fields!.length, 2);
      const results = (await templates(tenant)).json().results;
      assert.equal(results[2].origin_type, 'PLATFORM_DEFAULT', 'nothing stored');
      assert.equal(results[4].subject, 'Valid', 'nothing changed');
    });

    it('limits the size of html, subject and the design JSON', async () => {
      const tenant = await newTenant();
      assertFields(
        await write('POST', tenant, 'USER_TEST', { subject: 's', html: 'x'.repeat(256 * 1024 + 1) }),
        ['/html'],
      );
      assertFields(await write('POST', tenant, 'USER_TEST', { subject: 's'.repeat(501), html: '<p>x</p>' }), [
        '/subject',
      ]);
      assertFields(await write('POST', tenant, 'USER_TEST', { subject: '', html: '<p>x</p>' }), ['/subject']);
      assertFields(
        await write('POST', tenant, 'USER_TEST', {
          subject: 's',
          html: '<p>x</p>',
          editor_embed_design_json: { blob: 'x'.repeat(512 * 1024) },
        }),
        ['/editor_embed_design_json'],
      );
      assertFields(await write('POST', tenant, 'USER_TEST', { subject: 's', html: '<p>x</p>', text: 'x' }), [
        '/text',
      ]);
    });
  });

  describe('campaign templates (?campaign_id=)', () => {
    it('creates, lists and reverts a campaign version of the three claim types; others are 400', async () => {
      const tenant = await newTenant();
      const campaignId = await campaignOf(tenant);
      const q = { campaign_id: campaignId };
      const listed = await templates(tenant, q);
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(
        listed.json().results.map((t: { template_type: string }) => t.template_type),
        ['REDEEM_NFT', 'CLAIM_PINCODE', 'CLAIMED_NFT'],
      );
      const created = await write('POST', tenant, 'REDEEM_NFT', { subject: 'Campaign', html: '<p>c</p>' }, q);
      assert.equal(created.statusCode, 201, created.body);
      assertError(
        await write('POST', tenant, 'REDEEM_NFT', { subject: 'Campaign', html: '<p>c</p>' }, q),
        409,
        'ALREADY_EXISTS',
      );
      // The organization's own version is a different template: still the default, creatable.
      const org = await env.call('GET', '/v1/email-templates/REDEEM_NFT', { token: tenant.admin.token });
      assert.equal(org.json().origin_type, 'PLATFORM_DEFAULT');
      assert.equal(
        (await write('POST', tenant, 'REDEEM_NFT', { subject: 'Org', html: '<p>o</p>' })).statusCode,
        201,
      );
      const campaign = await env.call('GET', '/v1/email-templates/REDEEM_NFT', {
        token: tenant.admin.token,
        query: q,
      });
      assert.equal(campaign.json().subject, 'Campaign');
      const edited = await write(
        'PATCH',
        tenant,
        'REDEEM_NFT',
        { subject: 'Campaign 2', html: '<p>c2</p>' },
        q,
      );
      assert.equal(edited.json().subject, 'Campaign 2');
      // Reverting the campaign's version shows what its mail falls back to: the organization's.
      const reverted = await env.call('DELETE', '/v1/email-templates/REDEEM_NFT', {
        token: tenant.admin.token,
        query: q,
      });
      assert.equal(reverted.statusCode, 204);
      const fallback = await env.call('GET', '/v1/email-templates/REDEEM_NFT', {
        token: tenant.admin.token,
        query: q,
      });
      assert.deepEqual(
        [fallback.json().subject, fallback.json().origin_type],
        ['Org', 'ORGANIZATION_CUSTOM'],
      );
      assertError(
        await write('PATCH', tenant, 'REDEEM_NFT', { subject: 'x', html: '<p>x</p>' }, q),
        404,
        'NOT_FOUND',
      );

      for (const type of ['USER_INVITE', 'FORGOT_PASSWORD_RESET', 'USER_TEST']) {
        for (const request of [
          () => env.call('GET', `/v1/email-templates/${type}`, { token: tenant.admin.token, query: q }),
          () => write('POST', tenant, type, { subject: 'x', html: '<p>x</p>' }, q),
          () => write('PATCH', tenant, type, { subject: 'x', html: '<p>x</p>' }, q),
          () => env.call('DELETE', `/v1/email-templates/${type}`, { token: tenant.admin.token, query: q }),
          () =>
            env.call('GET', `/v1/email-templates/${type}/variables`, { token: tenant.admin.token, query: q }),
        ]) {
          assertFields(await request(), ['querystring:/campaign_id']);
        }
      }
    });

    it("answers 404 for an unknown campaign and another organization's campaign", async () => {
      const tenant = await newTenant();
      const theirs = await campaignOf(tenant);
      for (const campaignId of [UNKNOWN_ID, theirs]) {
        const q = { campaign_id: campaignId };
        const token = campaignId === theirs ? tenant.stranger.token : tenant.admin.token;
        assertError(await env.call('GET', '/v1/email-templates', { token, query: q }), 404, 'NOT_FOUND');
        assertError(
          await env.call('GET', '/v1/email-templates/REDEEM_NFT', { token, query: q }),
          404,
          'NOT_FOUND',
        );
        assertError(
          await env.call('POST', '/v1/email-templates/REDEEM_NFT', {
            token,
            query: q,
            body: { subject: 'x', html: '<p>x</p>' },
          }),
          404,
          'NOT_FOUND',
        );
      }
    });
  });
});
