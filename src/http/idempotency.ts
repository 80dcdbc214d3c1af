import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { ApiError } from '../lib/errors.ts';
import type { Keyring } from '../lib/secrets.ts';

/**
 * Idempotency-Key on every POST (docs/api.md#idempotency). The first request with a key claims it
 * by inserting a row; its response is stored when it is sent. A retry with the same key and body
 * gets the stored response; a concurrent retry waits for the first to finish. A claim whose request
 * died (crash, 5xx) is released or expires after LEASE_SECONDS, so the key can be used again.
 */
const RETENTION_HOURS = 24;
const LEASE_SECONDS = 60;
const WAIT_STEP_MS = 25;
const MAX_WAIT_MS = 30_000;

export interface IdempotencyClaim {
  scope: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: IdempotencyClaim;
  }
}

/**
 * The caller is part of the request: keys are scoped per organization, but a response
 * is only replayed to the user who caused it, never to a colleague who happens to send the same
 * key and body (a replayed POST /v1/api-keys would hand over another user's secret key).
 */
function requestHash(request: FastifyRequest): Buffer {
  return createHash('sha256')
    .update(request.principal?.userId ?? '')
    .update('\0')
    .update(request.method)
    .update('\0')
    .update(request.url)
    .update('\0')
    .update(JSON.stringify(request.body ?? null))
    .digest();
}

/** Claims the key, replays a stored response, or fails; returns true when the reply was sent. */
export async function beginIdempotentRequest(
  db: Executor,
  keyring: Keyring,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: string,
  key: string,
): Promise<boolean> {
  const hash = requestHash(request);
  const deadline = Date.now() + MAX_WAIT_MS;
  for (;;) {
    const claimed = await sql<{ key: string }>`
      INSERT INTO idempotency_keys (scope, key, method, path, request_hash, locked_until)
      VALUES (${scope}, ${key}, ${request.method}, ${request.url}, ${hash}, now() + ${LEASE_SECONDS} * interval '1 second')
      ON CONFLICT (scope, key) DO UPDATE SET
        method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
        status_code = NULL, response_body = NULL, response_content_type = NULL,
        locked_until = EXCLUDED.locked_until, created_at = now()
      -- Take over only a key whose retention ended, or an unfinished claim whose lease ran out.
      WHERE idempotency_keys.created_at < now() - ${RETENTION_HOURS} * interval '1 hour'
         OR (idempotency_keys.status_code IS NULL AND idempotency_keys.locked_until < now()
             AND idempotency_keys.request_hash = EXCLUDED.request_hash)
      RETURNING key`.execute(db);
    if (claimed.rows.length > 0) {
      request.idempotencyClaim = { scope, key };
      return false;
    }
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!existing) continue;
    if (
      existing.method !== request.method ||
      existing.path !== request.url ||
      !existing.request_hash.equals(hash)
    ) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request');
    }
    if (existing.status_code !== null) {
      reply
        .code(existing.status_code)
        .header('idempotent-replayed', 'true')
        .header('content-type', existing.response_content_type ?? 'application/json; charset=utf-8');
      reply.send(existing.response_body === null ? '' : keyring.decrypt(existing.response_body));
      return true;
    }
    if (Date.now() > deadline) {
      throw new ApiError(
        'IDEMPOTENCY_KEY_REUSED',
        'a request with this Idempotency-Key is still in progress',
      );
    }
    await sleep(WAIT_STEP_MS);
  }
}

/** Stores the response of a claimed request; a failure the client can retry releases the key. */
export async function finishIdempotentRequest(
  db: Executor,
  keyring: Keyring,
  claim: IdempotencyClaim,
  statusCode: number,
  payload: unknown,
  contentType: string | undefined,
): Promise<void> {
  const retryable = statusCode >= 500 || statusCode === 429;
  if (retryable || (typeof payload !== 'string' && payload !== undefined && payload !== null)) {
    await db
      .deleteFrom('idempotency_keys')
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .execute();
    return;
  }
  await db
    .updateTable('idempotency_keys')
    .set({
      status_code: statusCode,
      // Encrypted: a stored response can carry a secret (a new API key, an access token).
      response_body: keyring.encrypt((payload as string | undefined) ?? ''),
      response_content_type: contentType ?? null,
    })
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .execute();
}

export async function deleteExpiredIdempotencyKeys(db: Executor): Promise<void> {
  await sql`DELETE FROM idempotency_keys WHERE created_at < now() - ${RETENTION_HOURS} * interval '1 hour'`.execute(
    db,
  );
}
