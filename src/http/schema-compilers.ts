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

/**
 * The compilations not run yet, so that a check can run them all at once (compileAllPending): a
 * schema that does not compile would otherwise show only at its route's first request.
 */
const pending = new Set<() => void>();

/** Runs every compilation still waiting for its first use; returns how many ran. */
export function compileAllPending(): number {
  const waiting = [...pending];
  for (const compile of waiting) compile();
  return waiting.length;
}

/** `compile`, run once, on the first call of the function returned or by compileAllPending. */
function onFirstUse<T>(compile: () => T): () => T {
  let compiled: T | undefined;
  const run = () => {
    if (compiled === undefined) {
      pending.delete(run);
      compiled = compile();
    }
    return compiled;
  };
  pending.add(run);
  return run;
}

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
    const serializer = onFirstUse(() => fastifySerializerBuilder(externalSchemas, serializerOpts)(route));
    return (data) => serializer()(data);
  };
}

export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null | undefined;
}

/** A validator compiled on its first call; its errors are the compiled one's. */
export function validatorOnFirstUse(compile: () => Validator): Validator {
  const compiled = onFirstUse(compile);
  const validate: Validator = (data) => {
    const validator = compiled();
    const valid = validator(data);
    validate.errors = validator.errors;
    return valid;
  };
  return validate;
}
