import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';

/**
 * Fastify compiles every route's validators and response serializers when the app is built:
 * hundreds of ajv and fast-json-stringify compilations (each serializer resolving the shared
 * schemas again), which made most of a start's seconds and a good part of its memory, for routes a
 * process may never serve. Here each one is compiled on its first use instead, once, and kept.
 */

interface RouteSchema {
  schema?: unknown;
  method?: string;
  url?: string;
  httpStatus?: string;
  contentType?: string;
}
type Serialize = (data: unknown) => string;
type SerializerCompiler = (route: RouteSchema) => Serialize;
type SerializerBuilder = (externalSchemas: unknown, serializerOpts: unknown) => SerializerCompiler;

/** Fastify's own serializer builder (fast-json-stringify), the one it uses when given none. */
const fastifySerializerBuilder = (
  createRequire(import.meta.resolve('fastify'))(
    '@fastify/fast-json-stringify-compiler',
  ) as () => SerializerBuilder
)();

/**
 * Fastify's serializer builder (`schemaController.compilersFactory.buildSerializer`), each
 * serializer compiled when a route first answers with that status. Each compilation gets a fresh
 * compiler: Fastify's drops a shared schema from the options it reuses once a schema answered is
 * that shared schema itself, and first uses come in any order.
 */
export function buildSerializerOnFirstUse(
  externalSchemas: unknown,
  serializerOpts: unknown,
): SerializerCompiler {
  return (route) => {
    let serialize: Serialize | undefined;
    return (data) => {
      serialize ??= fastifySerializerBuilder(externalSchemas, serializerOpts)(route);
      return serialize(data);
    };
  };
}

export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null | undefined;
}

/** A validator compiled on its first call; its errors are the compiled one's. */
export function validatorOnFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}
