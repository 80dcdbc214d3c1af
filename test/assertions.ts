import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import type { LightMyRequestResponse } from 'fastify';
import { ErrorBody, type ErrorCode } from '../src/lib/errors.ts';

/** Assertions every test file shares. */

export type ErrorDetail = ErrorBody['error'];

export interface ErrorExpectation {
  /** The `fields[].path` of a 400, in the order the body lists them. */
  fields?: string[];
  /** What was asked, for the failure message (a route table walks many requests). */
  what?: string;
}

/**
 * Asserts the status and the error body (docs/api.md#errors): JSON, the ErrorBody shape, the code, a
 * sentence of detail and the request id of the response's x-request-id. Returns the error.
 */
export function assertError(
  response: LightMyRequestResponse,
  status: number,
  code: ErrorCode,
  expected: ErrorExpectation = {},
): ErrorDetail {
  const what = expected.what ? `${expected.what}: ` : '';
  assert.equal(response.statusCode, status, `${what}expected ${status} ${code}, got ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/json/, `${what}${response.body}`);
  const body = response.json();
  assert.ok(Value.Check(ErrorBody, body), `${what}not an error body: ${response.body}`);
  const error = (body as ErrorBody).error;
  assert.equal(error.code, code, `${what}${response.body}`);
  assert.ok(error.detail.length > 0, `${what}detail is a sentence: ${response.body}`);
  assert.equal(error.request_id, response.headers['x-request-id'], 'request_id differs from x-request-id');
  if (expected.fields) {
    assert.ok(Array.isArray(error.fields), `${what}fields are listed: ${response.body}`);
    assert.deepEqual(
      error.fields.map((f) => f.path),
      expected.fields,
      response.body,
    );
  }
  return error;
}

/** Asserts 400 VALIDATION_FAILED naming exactly these field paths, in any order. */
export function assertFields(response: LightMyRequestResponse, paths: string[]): ErrorDetail {
  const error = assertError(response, 400, 'VALIDATION_FAILED');
  assert.ok(Array.isArray(error.fields), `fields are listed: ${response.body}`);
  assert.deepEqual(error.fields.map((f) => f.path).sort(), [...paths].sort(), response.body);
  return error;
}
