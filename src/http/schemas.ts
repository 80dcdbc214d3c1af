import { type SchemaOptions, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { UUID_PATTERN } from '../lib/ids.ts';

/** Shapes shared by every module's schemas (docs/api.md#conventions). */

/**
 * The canonical hyphenated form only, any case. A pattern, not `format: 'uuid'`: ajv-formats
 * lets `urn:uuid:…` through, which PostgreSQL refuses (a 500 instead of a 400).
 */
export const Uuid = Type.String({
  pattern: UUID_PATTERN,
  description: 'UUID',
});
// maxLength: ajv-formats' date-time takes any number of fraction digits.
export const DateTime = Type.String({
  format: 'date-time',
  maxLength: 64,
  description: 'ISO 8601 UTC with milliseconds',
});
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Password = Type.String({ minLength: 8, maxLength: 256 });
export const EthAddress = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'Any case; mixed case must carry a valid EIP-55 checksum. Returned checksummed.',
});
export const Uint256 = Type.String({
  pattern: '^(0|[1-9][0-9]*)$',
  maxLength: 78,
  description: 'Uint256 as a decimal string',
});

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/**
 * A closed set of strings (db/enums.ts) as the document has always spelled it: `anyOf` of
 * `const`s, so wire schemas and column types come from one declaration.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options?: SchemaOptions,
): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );
}

export const IdempotencyKeyHeader = Type.String({ minLength: 1, maxLength: 255 });

export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
