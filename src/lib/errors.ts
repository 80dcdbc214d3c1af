import { type Static, Type } from '@sinclair/typebox';

/** The closed list of error codes (docs/api.md#errors) and the one status each answers with. */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  INVALID_CURSOR: 400,
  TOO_MANY_ITEMS: 400,
  PREVIEW_METADATA_REQUIRED: 400,
  INVALID_SELECTION: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  MFA_REQUIRED: 403,
  NOT_FOUND: 404,
  ITEM_ALREADY_LOCKED: 409,
  ITEM_NOT_LOCKED: 409,
  ITEM_ALREADY_MINTED: 409,
  ITEM_NOT_MINTED: 409,
  ITEM_RESERVED: 409,
  EMAIL_INTEGRATION_EXISTS: 409,
  ALREADY_EXISTS: 409,
  INVALID_STATE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  MISSING_TOKEN_CAPABILITY: 422,
  MISSING_MINT_CAPABILITY: 422,
  SCHEMA_VALIDATION_FAILED: 422,
  PAYOUT_ADDRESS_REQUIRED: 422,
  CARD_PROVIDER_NOT_READY: 422,
  CRYPTO_PROVIDER_NOT_READY: 422,
  INSUFFICIENT_SUPPLY: 422,
  NOT_ELIGIBLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The one exception to ERROR_STATUS: what Node's HTTP server refuses before Fastify or any route
 * sees a request (error-reply.ts writeClientError) keeps its HTTP status, which clients and
 * proxies act on, and carries the error body with the code named here. A body over the limit
 * and an unsupported media type reach Fastify and stay 400 like any other invalid request.
 */
export const TRANSPORT_ERROR_CODE = {
  400: 'VALIDATION_FAILED',
  408: 'VALIDATION_FAILED',
  414: 'VALIDATION_FAILED',
  431: 'VALIDATION_FAILED',
} as const satisfies Record<number, ErrorCode>;
export type TransportStatus = keyof typeof TRANSPORT_ERROR_CODE;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface FieldError {
  path: string;
  message: string;
}

/**
 * An answer the API gives (docs/api.md#errors). A 4xx one is the client's outcome, not a fault:
 * it carries no stack trace (capturing one was a few percent of the CPU of a request refused, the
 * common answer under a drop's load), and none is logged; a 5xx one keeps its stack for the log.
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: { fields?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    const status = ERROR_STATUS[code];
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    try {
      super(detail);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'ApiError';
    this.status = status;
  }
}

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(Object.keys(ERROR_STATUS).map((code) => Type.Literal(code))),
      detail: Type.String(),
      request_id: Type.String(),
      fields: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid',
  401: 'Missing, invalid, expired or revoked credentials',
  403: 'The caller lacks permission',
  404: 'No such resource (or it belongs to another organization)',
  409: 'The request conflicts with the current state',
  422: 'The request is well formed but cannot be carried out',
  429: 'Too many requests; retry after the Retry-After header',
  500: 'Internal error',
  502: 'An upstream service failed',
  503: 'The service is not available',
};

/** Response schemas for the error statuses an operation can answer with. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const all = new Set([400, 500, ...statuses]);
  return Object.fromEntries(
    [...all]
      .sort()
      .map((status) => [status, { ...Type.Ref(ErrorBody), description: STATUS_DESCRIPTIONS[status] }]),
  );
}
