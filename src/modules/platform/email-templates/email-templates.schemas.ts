import { type Static, Type } from '@sinclair/typebox';
import { TEMPLATE_TYPES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { Nullable, StringEnum, Uuid } from '../../../http/schemas.ts';

/** Limits of a stored template (docs/api.md#templates). */
export const MAX_HTML_LENGTH = 256 * 1024;
export const MAX_SUBJECT_LENGTH = 500;
/** Of editor_embed_design_json, serialized. */
export const MAX_DESIGN_JSON_BYTES = 512 * 1024;

export const ORIGIN_TYPES = ['PLATFORM_DEFAULT', 'ORGANIZATION_CUSTOM'] as const;
export type OriginType = (typeof ORIGIN_TYPES)[number];

export const TemplateTypeSchema = StringEnum(TEMPLATE_TYPES);

const DesignJson = Type.Object(
  {},
  {
    additionalProperties: true,
    description: `The template editor's design document, kept as given (at most ${MAX_DESIGN_JSON_BYTES} bytes as JSON)`,
  },
);

export const EmailTemplate = Type.Object(
  {
    template_type: TemplateTypeSchema,
    subject: Type.String(),
    html: Type.String(),
    origin_type: StringEnum(ORIGIN_TYPES),
    editor_embed_design_json: Nullable(DesignJson),
  },
  { $id: 'EmailTemplate', title: 'EmailTemplate' },
);
export type EmailTemplate = Static<typeof EmailTemplate>;

export const TemplateVariable = Type.Object(
  {
    name: Type.String(),
    template_type: TemplateTypeSchema,
    default_value: Type.String({ description: 'The example value a preview or test mail uses' }),
    value: Nullable(Type.String({ description: 'Always null here; POST …/test takes values' })),
  },
  { $id: 'EmailTemplateVariable', title: 'EmailTemplateVariable' },
);
export type TemplateVariable = Static<typeof TemplateVariable>;

const CampaignId = Type.Optional({
  ...Uuid,
  description:
    "A campaign's own template (REDEEM_NFT, CLAIM_PINCODE and CLAIMED_NFT only; 400 for other types)",
});

export const TemplateScopeQuery = Type.Object({ campaign_id: CampaignId }, { additionalProperties: false });
export type TemplateScopeQuery = Static<typeof TemplateScopeQuery>;

export const ListTemplatesQuery = Type.Object(
  { ...listQueryProperties('standard'), campaign_id: CampaignId },
  { additionalProperties: false },
);

export const TemplateTypeParams = Type.Object(
  { template_type: TemplateTypeSchema },
  { additionalProperties: false },
);

const Subject = Type.String({
  minLength: 1,
  maxLength: MAX_SUBJECT_LENGTH,
  description: 'A Handlebars template; rendered unescaped and on one line',
});
const Html = Type.String({
  minLength: 1,
  maxLength: MAX_HTML_LENGTH,
  description:
    'A Handlebars template: values are HTML-escaped ({{{…}}} is refused); the built-in if, unless, each and with only; no partials',
});

export const TemplateBody = Type.Object(
  { html: Html, subject: Subject, editor_embed_design_json: Type.Optional(Nullable(DesignJson)) },
  { additionalProperties: false },
);
export type TemplateBody = Static<typeof TemplateBody>;

export const TestTemplateBody = Type.Object(
  {
    html: Html,
    subject: Subject,
    variables: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
          value: Type.Optional(
            Nullable(
              Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()], {
                description: 'null (or left out): the default value',
              }),
            ),
          ),
          template_type: Type.Optional(TemplateTypeSchema),
          default_value: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: false },
);
export type TestTemplateBody = Static<typeof TestTemplateBody>;

export const TestTemplateResult = Type.Object(
  { delivered: Type.Literal(true), to: Type.String() },
  { title: 'EmailTemplateTestResult' },
);
