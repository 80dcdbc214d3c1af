import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  type ErrorBody,
  type FieldError,
  TRANSPORT_ERROR_CODE,
  type TransportStatus,
} from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';

/** The body limit of the API (and of anything that names no other). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Writes the error body (docs/api.md#errors) with the request id; the one JSON error writer of
 * every scope.
 */
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

/**
 * Node's `clientError`: the parser refused the bytes (not HTTP, a request line or headers over
 * its limit) or the request did not arrive within the request timeout. No request object exists
 * yet, so a minimal response is written on the socket (with a request id of its own) and the
 * connection closed, as Node does, with the API's error body instead of the framework's.
 */
export function writeClientError(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Duplex,
  log: FastifyBaseLogger,
  limits: { requestTimeoutMs: number },
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let status: TransportStatus;
  let detail: string;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    detail = `the request was not received within ${limits.requestTimeoutMs} ms`;
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    // One limit covers the request line and the headers: the URL is to blame when it is the bulk.
    const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
    const lineEnd = packet.indexOf('\r\n');
    const requestLine = lineEnd < 0 ? packet : packet.slice(0, lineEnd);
    const urlTooLong =
      /^[A-Z]+ /.test(requestLine) && requestLine.length > packet.length - requestLine.length;
    status = urlTooLong ? 414 : 431;
    detail = urlTooLong ? 'the URL is too long' : 'the request headers are too large';
  } else {
    status = 400;
    detail = 'the request is not valid HTTP/1.1';
  }
  const requestId = uuidv7();
  log.info({ err: error, reqId: requestId, status }, 'client error');
  // A response already started on this connection (a request in progress) cannot be replaced.
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inProgress?.headersSent) {
    const body: ErrorBody = { error: { code: TRANSPORT_ERROR_CODE[status], detail, request_id: requestId } };
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
    );
  }
  socket.destroy(error);
}
