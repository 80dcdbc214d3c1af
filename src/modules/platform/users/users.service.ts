import { ROLE_IDS, roleNameOf } from '../../../access/permissions.ts';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { NewUser, UserRow, UserTokenPurpose, UserUpdate } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomToken, uuidv7 } from '../../../lib/ids.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { revokeApiKeysOfUser } from '../api-keys/api-keys.service.ts';
import { queueMail } from '../mail/mail.service.ts';
import { mailDate } from '../mail/templates.ts';
import { findOrganization } from '../organizations/organizations.service.ts';
import * as repo from './users.repository.ts';
import type { EditUserBody, InviteUserBody, User } from './users.schemas.ts';

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

/** The columns a user is shown with. */
export const USER_SHOWN_COLUMNS = [
  'id',
  'email',
  'active',
  'last_seen',
  'organization_id',
  'role_id',
  'mfa_enabled',
  'created_at',
] as const satisfies readonly (keyof UserRow)[];

export function toUser(row: Pick<UserRow, (typeof USER_SHOWN_COLUMNS)[number]>): User {
  return {
    id: row.id,
    email: row.email,
    active: row.active,
    last_seen: iso(row.last_seen),
    organization_id: row.organization_id,
    role_id: row.role_id,
    mfa_enabled: row.mfa_enabled,
    created_at: iso(row.created_at),
  };
}

export async function getUser(db: Executor, principal: Principal, id: string): Promise<UserRow> {
  const row = await repo.findUserById(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'user not found');
  assertOrganizationAccess(principal, row.organization_id, 'user');
  return row;
}

export function listUsers(
  db: Executor,
  principal: Principal,
  page: PageParams,
  organizationId: string | undefined,
): Promise<PageResult<UserRow>> {
  if (!isPlatformAdmin(principal)) {
    // Another organization's users: an empty list, never a hint that the organization exists.
    if (organizationId !== undefined && organizationId !== principal.organizationId) {
      return Promise.resolve({ results: [], cursor: null, has_more: false, total_results: 0 });
    }
    return repo.listUsers(db, page, { organizationId: principal.organizationId });
  }
  return repo.listUsers(db, page, { organizationId });
}

function assertRoleGrantable(principal: Principal, roleId: string): void {
  if (!Object.values(ROLE_IDS).includes(roleId)) {
    throw new ApiError('VALIDATION_FAILED', 'role_id is not a role', {
      fields: [{ path: '/role_id', message: 'unknown role' }],
    });
  }
  if (roleId === ROLE_IDS.PLATFORM_ADMIN && !isPlatformAdmin(principal)) {
    throw new ApiError('FORBIDDEN', 'only a platform admin may grant PLATFORM_ADMIN');
  }
}

/** Creates the user without a password and mails a USER_INVITE carrying a one-time verify token. */
export async function inviteUser(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: InviteUserBody,
): Promise<UserRow> {
  const organizationId = body.organization_id ?? principal.organizationId;
  if (organizationId !== principal.organizationId && !isPlatformAdmin(principal)) {
    throw new ApiError('FORBIDDEN', 'only a platform admin may invite users into another organization');
  }
  assertRoleGrantable(principal, body.role_id);
  const organization = await findOrganization(db, organizationId);
  if (!organization) throw new ApiError('NOT_FOUND', 'organization not found');

  let user: UserRow;
  try {
    user = await repo.insertUser(db, {
      id: uuidv7(),
      organization_id: organizationId,
      email: body.email.toLowerCase(),
      role_id: body.role_id,
    });
  } catch (error) {
    if (isUniqueViolation(error, 'users_email_key')) {
      throw new ApiError('ALREADY_EXISTS', `a user with email ${body.email} already exists`);
    }
    throw error;
  }
  const { token, expiresAt } = await issueUserToken(db, user.id, 'VERIFY', INVITE_TTL_MS);
  const verifyUrl = new URL(`${deps.config.http.publicBaseUrl}/verify`);
  verifyUrl.searchParams.set('token', token);
  verifyUrl.searchParams.set('email', user.email);
  await queueMail(db, {
    organizationId,
    templateType: 'USER_INVITE',
    to: user.email,
    variables: {
      organization_name: organization.name,
      invite_url: verifyUrl.toString(),
      expires_at: mailDate(expiresAt),
      email: user.email,
    },
  });
  return user;
}

export async function editUser(
  db: Tx,
  principal: Principal,
  id: string,
  body: EditUserBody,
): Promise<UserRow> {
  await getUser(db, principal, id);
  // Locked: a concurrent deactivation by a platform admin cannot be undone by an edit that read
  // the row before it.
  const target = await repo.findUserByIdForUpdate(db, id);
  if (!target) throw new ApiError('NOT_FOUND', 'user not found');
  const targetIsPlatformAdmin = roleNameOf(target.role_id) === 'PLATFORM_ADMIN';
  if (targetIsPlatformAdmin && !isPlatformAdmin(principal)) {
    throw new ApiError('FORBIDDEN', 'only a platform admin may edit a platform admin');
  }
  if (body.role_id !== undefined) assertRoleGrantable(principal, body.role_id);
  if (
    target.id === principal.userId &&
    (body.active === false || (body.role_id && body.role_id !== target.role_id))
  ) {
    throw new ApiError('INVALID_STATE', 'users cannot deactivate themselves or change their own role');
  }
  const patch: UserUpdate = {};
  if (body.role_id !== undefined) patch.role_id = body.role_id;
  if (body.active !== undefined) patch.active = body.active;
  // A platform admin's deactivation is the platform's to undo: an org admin cannot reactivate.
  if (
    body.active === true &&
    !target.active &&
    target.deactivated_by_platform &&
    !isPlatformAdmin(principal)
  ) {
    throw new ApiError(
      'FORBIDDEN',
      'only a platform admin may reactivate a user a platform admin deactivated',
    );
  }
  if (body.active === true) patch.deactivated_by_platform = false;
  // The mark records who took the user's access away; deactivating again never clears it.
  if (body.active === false && isPlatformAdmin(principal)) patch.deactivated_by_platform = true;
  // Deactivation ends every session and API key of the user at once, for good: reactivation
  // needs a new log in and new keys.
  if (body.active === false && target.active) {
    await revokeApiKeysOfUser(db, id);
    return repo.updateUserRevokingSessions(db, id, patch);
  }
  return repo.updateUser(db, id, patch);
}

// What the auth module does with users and their emailed tokens, through this service only.

export function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return repo.findUserById(db, id);
}

/** The user, locked until the caller's transaction ends (credential changes). */
export function lockUser(db: Tx, id: string): Promise<UserRow | undefined> {
  return repo.findUserByIdForUpdate(db, id);
}

export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return repo.findUserByEmail(db, email);
}

export function createUser(db: Executor, user: NewUser): Promise<UserRow> {
  return repo.insertUser(db, user);
}

export function countUsers(db: Executor): Promise<number> {
  return repo.countUsers(db);
}

/** Changes credential fields (password, MFA); `revokeSessions` ends every token issued before. */
export function updateCredentials(
  db: Executor,
  id: string,
  patch: UserUpdate,
  options: { revokeSessions: boolean },
): Promise<UserRow> {
  return options.revokeSessions
    ? repo.updateUserRevokingSessions(db, id, patch)
    : repo.updateUser(db, id, patch);
}

export function touchLastSeen(db: Executor, id: string): Promise<void> {
  return repo.touchLastSeen(db, id);
}

/**
 * A new one-time token of the purpose (invite verification, password reset), mailed as a link:
 * only its digest is stored, and the user's older tokens of the purpose stop working.
 */
export async function issueUserToken(
  db: Executor,
  userId: string,
  purpose: UserTokenPurpose,
  ttlMs: number,
): Promise<{ token: string; expiresAt: Date }> {
  await repo.expireUserTokens(db, userId, purpose);
  const token = randomToken();
  const expiresAt = new Date(Date.now() + ttlMs);
  await repo.insertUserToken(db, { id: uuidv7(), userId, purpose, hash: sha256(token), expiresAt });
  return { token, expiresAt };
}

/** The user a valid, unused token of the purpose belongs to, without using it up. */
export async function userOfToken(
  db: Executor,
  purpose: UserTokenPurpose,
  token: string,
): Promise<string | undefined> {
  return (await repo.findUnusedUserToken(db, purpose, sha256(token)))?.user_id;
}

/** Uses a valid token up (it works once) and returns its user; older tokens of the purpose end too. */
export async function consumeUserToken(
  db: Executor,
  purpose: UserTokenPurpose,
  token: string,
): Promise<string | undefined> {
  const used = await repo.consumeUserToken(db, purpose, sha256(token));
  if (used) await repo.expireUserTokens(db, used.user_id, purpose);
  return used?.user_id;
}
