import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import { ApiError, type FieldError } from '../../../lib/errors.ts';

/**
 * Item type schemas (DESIGN.md: ajv + ajv-formats, draft 2020-12 and draft-07). A schema is
 * draft 2020-12 unless its `$schema` names draft-07; it must pass its draft's meta schema, have
 * `type: "object"` at the root (item attributes are objects) and compile.
 */

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
type Draft = '2020-12' | 'draft-07';

const DRAFTS: Record<string, Draft> = {
  [DRAFT_2020_12]: '2020-12',
  [`${DRAFT_2020_12}#`]: '2020-12',
  [DRAFT_07]: 'draft-07',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft-07/schema#': 'draft-07',
  'https://json-schema.org/draft-07/schema': 'draft-07',
};

const ROOT_IS_AN_OBJECT = {
  type: 'object',
  required: ['type'],
  properties: { type: { const: 'object' } },
};

/** What GET /v1/item-types/meta-schema returns, and what a draft 2020-12 json_schema must pass. */
export const META_JSON_SCHEMA = {
  $schema: DRAFT_2020_12,
  title: 'Item type json_schema',
  description:
    'A JSON Schema (draft 2020-12 by default; draft-07 when its $schema is ' +
    `"${DRAFT_07}") whose root has "type": "object": item attributes are JSON objects.`,
  allOf: [{ $ref: DRAFT_2020_12 }, ROOT_IS_AN_OBJECT],
};

/** The same rule for a draft-07 json_schema (a $ref in draft-07 ignores its siblings: allOf). */
const META_JSON_SCHEMA_07 = { $schema: DRAFT_07, allOf: [{ $ref: DRAFT_07 }, ROOT_IS_AN_OBJECT] };

export const EXAMPLE_JSON_SCHEMA = {
  $schema: DRAFT_2020_12,
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string' },
    image: { type: 'string', format: 'uri' },
    rarity: { enum: ['common', 'rare', 'legendary'] },
    level: { type: 'integer', minimum: 1 },
  },
  required: ['name', 'image'],
  additionalProperties: false,
};

const OPTIONS = { allErrors: true, strict: false, useDefaults: false, coerceTypes: false } as const;

/**
 * `pattern` and `patternProperties` of item type schemas run on RE2 (re2js): matching takes time
 * linear in the input, so a schema like `^(a+)+$` cannot stall the service on a crafted attribute
 * (the built-in engine backtracks exponentially). RE2 has no lookaround or backreferences: such a
 * pattern does not compile, and the schema is refused with a 400.
 */
const linearRegExp = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    return { test: (input: string) => compiled.test(input) };
  },
  { code: 're2js' },
);

// The meta schemas compile once; validating a schema against them registers nothing.
let metaValidators: Record<Draft, ValidateFunction> | undefined;
function metaValidator(draft: Draft): ValidateFunction {
  metaValidators ??= {
    '2020-12': addFormats.default(new Ajv2020(OPTIONS)).compile(META_JSON_SCHEMA),
    'draft-07': addFormats.default(new Ajv(OPTIONS)).compile(META_JSON_SCHEMA_07),
  };
  return metaValidators[draft];
}

/**
 * Checks `schema` against its draft's meta schema and compiles it; every problem is a 400
 * VALIDATION_FAILED with fields under `/json_schema`.
 */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
  const draft = DRAFTS[String(schema.$schema ?? DRAFT_2020_12)];
  if (!draft) {
    throw invalidSchema([
      { path: '/json_schema/$schema', message: `must be "${DRAFT_2020_12}" or "${DRAFT_07}" (or absent)` },
    ]);
  }
  const check = metaValidator(draft);
  if (!check(schema)) throw invalidSchema(fieldErrors(check.errors ?? [], '/json_schema'));
  // A fresh instance per schema: a schema's `$id`s would otherwise be registered in a shared
  // instance, where another organization's schema could collide with them. An unknown format
  // is reported as a warning by ajv; here it is an error, so a typo never validates nothing.
  const warnings: string[] = [];
  const logger = { log() {}, warn: (message: unknown) => warnings.push(String(message)), error() {} };
  const options = {
    ...OPTIONS,
    validateSchema: false,
    addUsedSchema: false,
    logger,
    code: { regExp: linearRegExp },
  };
  const ajv = addFormats.default(draft === '2020-12' ? new Ajv2020(options) : new Ajv(options));
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw invalidSchema([{ path: '/json_schema', message: (error as Error).message }]);
  }
  if (warnings.length > 0) {
    throw invalidSchema(warnings.map((message) => ({ path: '/json_schema', message })));
  }
  return validate;
}

function invalidSchema(fields: FieldError[]): ApiError {
  return new ApiError('VALIDATION_FAILED', 'json_schema is not a valid item type schema', { fields });
}

/** Compiled validators by (item type id, updated_at): compiling costs about a millisecond. */
const MAX_CACHED = 1000;
const cache = new Map<string, ValidateFunction>();

export interface SchemaVersion {
  id: string;
  updated_at: Date;
  json_schema: Record<string, unknown>;
}

function cacheKey(version: SchemaVersion): string {
  return `${version.id}@${version.updated_at.getTime()}`;
}

export function validatorOf(version: SchemaVersion): ValidateFunction {
  const key = cacheKey(version);
  let validate = cache.get(key);
  if (validate === undefined) {
    validate = compileJsonSchema(version.json_schema);
    remember(key, validate);
  }
  return validate;
}

/** Keeps a validator just compiled for a new version (create, edit), so it is not compiled twice. */
export function cacheValidator(version: SchemaVersion, validate: ValidateFunction): void {
  remember(cacheKey(version), validate);
}

function remember(key: string, validate: ValidateFunction): void {
  cache.delete(key);
  cache.set(key, validate);
  // Oldest first: Map keeps insertion order.
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
}

const MAX_FIELDS = 100;

/**
 * ajv errors as the error body's `fields` (docs/api.md#errors): JSON pointers under `prefix`, at
 * most 100 of them.
 */
export function fieldErrors(errors: readonly ErrorObject[], prefix: string): FieldError[] {
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    let path = prefix + error.instancePath;
    if (typeof params.missingProperty === 'string') path += `/${pointerToken(params.missingProperty)}`;
    if (typeof params.additionalProperty === 'string') path += `/${pointerToken(params.additionalProperty)}`;
    const message =
      typeof params.additionalProperty === 'string' ? 'is not allowed' : (error.message ?? 'is invalid');
    const key = `${path}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fields.push({ path, message });
    if (fields.length >= MAX_FIELDS) break;
  }
  return fields;
}

function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Validates attributes; returns the failures as fields under `prefix` (empty when valid). */
export function attributeErrors(
  validate: ValidateFunction,
  attributes: unknown,
  prefix: string,
): FieldError[] {
  return validate(attributes) ? [] : fieldErrors(validate.errors ?? [], prefix);
}
