/** A refusal of the service's API as a page shows it (or a network failure: status 0). */
export interface ApiFailure {
  status: number;
  code: string;
  detail: string;
  retryAfter: number | null;
}

/**
 * A JSON call to this service's API from a page: the answer's JSON, or an ApiFailure thrown with
 * the error's code and detail (and Retry-After), whatever the body was (a proxy's error page too).
 */
export async function requestJson<T>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const init: RequestInit = { method, headers, cache: 'no-store' };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw {
      status: 0,
      code: 'NETWORK',
      detail: 'the service could not be reached',
      retryAfter: null,
    } satisfies ApiFailure;
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  if (response.ok) return json as T;
  const error = (json as { error?: { code?: string; detail?: string } } | null)?.error;
  const retryAfter = Number(response.headers.get('retry-after'));
  throw {
    status: response.status,
    code: error?.code ?? 'UNKNOWN',
    detail: error?.detail ?? `the service answered ${response.status}`,
    retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  } satisfies ApiFailure;
}

export function isFailure(error: unknown): error is ApiFailure {
  return typeof error === 'object' && error !== null && 'code' in error && 'status' in error;
}
