import { randomBytes } from 'node:crypto';

/**
 * What the users test files share (users-invite, users-list, users-edit.test.ts). Each file
 * has a database of its own (setupTest in its `before`): no test depends on another file's rows.
 */

/** A well-formed id that names no row. */
export const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';

/** An address no other test uses, starting with `label`. */
export function uniqueEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.test`;
}
