import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorBody, type FieldError } from './errors.ts';

/** The body limit of the API (and of anything that names no other). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Writes API.md §1's error body with the request id; the one JSON error writer of every scope. */
export function sendError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  if (apiError.options.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(apiError.options.retryAfterSeconds));
  const body: ErrorBody = {
    error: { code: apiError.code, request_id: String(request.id), ...boundedDetail(apiError) },
  };
  return reply.code(apiError.status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

const MAX_FIELDS = 20;
const MAX_TEXT = 200;

/**
 * The detail and the first MAX_FIELDS fields, each text shortened, so no error answer exceeds
 * 64 KB (20 fields of two 200-character texts, at six JSON bytes a character, plus the detail)
 * however hostile the input it names; the detail says how many fields were left out.
 */
function boundedDetail(error: ApiError): Pick<ErrorBody['error'], 'detail' | 'fields'> {
  const short = (text: string, max = MAX_TEXT) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const fields = error.options.fields;
  if (!fields) return { detail: short(error.detail, 1000) };
  const more = fields.length - MAX_FIELDS;
  return {
    detail:
      short(error.detail, 1000) + (more > 0 ? ` (the first ${MAX_FIELDS} fields listed, ${more} more)` : ''),
    fields: fields.slice(0, MAX_FIELDS).map((f) => ({ path: short(f.path), message: short(f.message) })),
  };
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', '57P01', '57P03', '53300', '08006', '08001']);
// pg-pool's error when no connection frees up within connectionTimeoutMillis.
const POOL_TIMEOUT = /timeout exceeded when trying to connect/i;

/** Any failure as an ApiError: framework errors get their code, anything unknown is INTERNAL. */
export function toApiError(error: FastifyError | ApiError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    const fields: FieldError[] = error.validation.map((v) => {
      const params = v.params as Record<string, unknown>;
      let path = v.instancePath;
      if (typeof params.missingProperty === 'string') path += `/${params.missingProperty}`;
      if (typeof params.additionalProperty === 'string') path += `/${params.additionalProperty}`;
      const message =
        typeof params.additionalProperty === 'string' ? 'is not a known field' : (v.message ?? 'is invalid');
      return { path: part === 'body' ? path || '/' : `${part}:${path || '/'}`, message };
    });
    return new ApiError('VALIDATION_FAILED', `the ${part} is invalid`, { fields });
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError(
      'VALIDATION_FAILED',
      `the body is larger than ${request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT_BYTES} bytes`,
    );
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('VALIDATION_FAILED', 'the body must be application/json');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('VALIDATION_FAILED', error.message);
  }
  if (UNAVAILABLE_CODES.has(String(error.code)) || POOL_TIMEOUT.test(error.message)) {
    return new ApiError('UNAVAILABLE', 'the database is not available');
  }
  return new ApiError('INTERNAL', 'internal error');
}
