import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { NewUser, UserRow, UserUpdate } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByIdForUpdate(db: Tx, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export function insertUser(db: Executor, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export function updateUser(db: Executor, id: string, patch: UserUpdate): Promise<UserRow> {
  return db
    .updateTable('users')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Ends every token issued before now (password change, deactivation, MFA enrolment). */
export function updateUserRevokingSessions(db: Executor, id: string, patch: UserUpdate): Promise<UserRow> {
  return db
    .updateTable('users')
    .set((eb) => ({ ...patch, session_version: eb('session_version', '+', 1), updated_at: new Date() }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Throttled: at most one write a minute per user, so authenticated reads stay reads. */
export async function touchLastSeen(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ last_seen: new Date() })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_seen', 'is', null), eb('last_seen', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}

export function listUsers(
  db: Executor,
  page: PageParams,
  filters: { organizationId: string | undefined },
): Promise<PageResult<UserRow>> {
  let query = db.selectFrom('users').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  return paginate(query, {
    page,
    filters,
    sortColumn: 'users.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'users.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

export function countUsers(db: Executor): Promise<number> {
  return db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export async function insertUserToken(
  db: Executor,
  token: { id: string; userId: string; purpose: 'VERIFY' | 'RESET_PASSWORD'; hash: Buffer; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('user_tokens')
    .values({
      id: token.id,
      user_id: token.userId,
      purpose: token.purpose,
      token_hash: token.hash,
      expires_at: token.expiresAt,
    })
    .execute();
}

/** Takes a valid, unused token of the purpose, marking it used: a token works once. */
export function consumeUserToken(
  db: Executor,
  purpose: 'VERIFY' | 'RESET_PASSWORD',
  hash: Buffer,
): Promise<{ user_id: string } | undefined> {
  return db
    .updateTable('user_tokens')
    .set({ used_at: new Date() })
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning('user_id')
    .executeTakeFirst();
}

export function findUnusedUserToken(
  db: Executor,
  purpose: 'VERIFY' | 'RESET_PASSWORD',
  hash: Buffer,
): Promise<{ user_id: string } | undefined> {
  return db
    .selectFrom('user_tokens')
    .select('user_id')
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
}

/** Older tokens of the purpose stop working when a new one is issued or one is used. */
export async function expireUserTokens(
  db: Executor,
  userId: string,
  purpose: 'VERIFY' | 'RESET_PASSWORD',
): Promise<void> {
  await db
    .updateTable('user_tokens')
    .set({ used_at: new Date() })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}
