import type { OperationExample } from '../../../http/openapi-examples.ts';
import { NEXT_CURSOR, page } from '../../../http/openapi-story.ts';
import { defaultTemplate, TEMPLATE_VARIABLES } from '../mail/templates.ts';

/** The organization's own claim mail, in place of the platform's default. */
const claimTemplate = {
  template_type: 'REDEEM_NFT',
  subject: '{{organization_name}} saved {{item_name}} for you',
  html: [
    '<h1>{{item_name}} is waiting for you</h1>',
    '<p>{{organization_name}} set aside a token of {{collection_name}} for you.</p>',
    '{{#if item_image}}<p><img src="{{item_image}}" alt="{{item_name}}" width="240"></p>{{/if}}',
    '<p><a href="{{claim_url}}">Claim {{item_name}}</a> before {{expiration}}.</p>',
  ].join('\n'),
};

/** Email templates (with ?campaign_id=, a campaign's own). */
export const emailTemplatesExamples: Readonly<Record<string, OperationExample>> = {
  listEmailTemplates: {
    response: page(
      [
        { ...claimTemplate, origin_type: 'ORGANIZATION_CUSTOM', editor_embed_design_json: null },
        {
          template_type: 'CLAIM_PINCODE',
          ...defaultTemplate('CLAIM_PINCODE'),
          origin_type: 'PLATFORM_DEFAULT',
          editor_embed_design_json: null,
        },
      ],
      { cursor: NEXT_CURSOR, total_results: 3 },
    ),
  },
  getEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    response: { ...claimTemplate, origin_type: 'ORGANIZATION_CUSTOM', editor_embed_design_json: null },
  },
  createEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    request: { subject: claimTemplate.subject, html: claimTemplate.html },
    response: { ...claimTemplate, origin_type: 'ORGANIZATION_CUSTOM', editor_embed_design_json: null },
  },
  editEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    request: { subject: '{{item_name}} is yours to claim', html: claimTemplate.html },
    response: {
      ...claimTemplate,
      subject: '{{item_name}} is yours to claim',
      origin_type: 'ORGANIZATION_CUSTOM',
      editor_embed_design_json: null,
    },
  },
  deleteEmailTemplate: { params: { template_type: 'REDEEM_NFT' } },
  testEmailTemplate: {
    params: { template_type: 'REDEEM_NFT' },
    request: {
      subject: claimTemplate.subject,
      html: claimTemplate.html,
      variables: [
        { name: 'item_name', value: 'Harbor at Dusk' },
        { name: 'collection_name', value: 'Northwind Genesis' },
      ],
    },
    response: { delivered: true, to: 'ada@northwind.example' },
  },
  listEmailTemplateVariables: {
    params: { template_type: 'REDEEM_NFT' },
    response: page(
      Object.entries({ ...TEMPLATE_VARIABLES.REDEEM_NFT, organization_name: 'Northwind Studios' }).map(
        ([name, default_value]) => ({ name, template_type: 'REDEEM_NFT', default_value, value: null }),
      ),
    ),
  },
};
