import argon2 from 'argon2';
import { ROLE_PERMISSIONS, roleNameOf } from '../../../access/permissions.ts';
import type { Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { OrganizationRow, UserRow } from '../../../db/schema.ts';
import { checkRateLimit, hitRateLimit, type RateLimit } from '../../../http/rate-limit.ts';
import { ApiError } from '../../../lib/errors.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { API_KEY_PREFIX } from '../api-keys/api-keys.service.ts';
import { queueMail } from '../mail/mail.service.ts';
import { mailDate } from '../mail/templates.ts';
import { findOrganization, toOrganization } from '../organizations/organizations.service.ts';
import * as users from '../users/users.service.ts';
import * as repo from './auth.repository.ts';
import type {
  ChangePasswordBody,
  ForgotPasswordBody,
  LoginBody,
  LoginMfaBody,
  MfaChallenge,
  ResetPasswordBody,
  Session,
  VerifyUserBody,
} from './auth.schemas.ts';
import { MFA_TOKEN_TTL_SECONDS, signToken, verifyToken } from './tokens.ts';
import { newTotpSecret, otpauthUrl, totpStep } from './totp.ts';

/** Brute-force limits (docs/api.md#rate-limits): per account and per client address. */
export const LIMITS = {
  loginPerIp: { name: 'login:ip', max: 100, windowSeconds: 15 * 60 },
  failedLoginPerAccount: { name: 'login:account', max: 10, windowSeconds: 15 * 60 },
  forgotPerIp: { name: 'forgot:ip', max: 20, windowSeconds: 3600 },
  forgotPerAccount: { name: 'forgot:account', max: 5, windowSeconds: 3600 },
  resetPerIp: { name: 'reset:ip', max: 20, windowSeconds: 3600 },
  resetPerAccount: { name: 'reset:account', max: 10, windowSeconds: 3600 },
} as const satisfies Record<string, RateLimit>;

const LAST_SEEN_PRECISION_MS = 60_000;

export const RESET_TOKEN_TTL_MS = 3600 * 1000;

// Compared against when the account does not exist, so timing does not reveal which emails do.
let dummyHash: Promise<string> | undefined;
const dummyPasswordHash = () => (dummyHash ??= argon2.hash('not-a-real-password-0000'));

export type LoginOutcome = Session | MfaChallenge;

async function issueSession(deps: Deps, user: UserRow): Promise<Session> {
  const access_token = await signToken(
    deps.keyring,
    'access',
    { userId: user.id, sessionVersion: user.session_version },
    deps.config.accessTokenTtlSeconds,
  );
  return { access_token, user: users.toUser(user) };
}

/** A user with MFA gets a challenge instead of a session, whichever way the password was proven. */
async function sessionOrChallenge(deps: Deps, user: UserRow): Promise<LoginOutcome> {
  if (!user.mfa_enabled) return issueSession(deps, user);
  const mfa_token = await signToken(
    deps.keyring,
    'mfa',
    { userId: user.id, sessionVersion: user.session_version },
    MFA_TOKEN_TTL_SECONDS,
  );
  return { mfa_required: true, mfa_token };
}

async function assertOrganizationEnabled(db: Executor, user: UserRow): Promise<OrganizationRow> {
  const organization = await findOrganization(db, user.organization_id);
  if (!organization?.is_enabled)
    throw new ApiError('FORBIDDEN', 'the organization of this account is disabled');
  return organization;
}

export async function login(db: Executor, deps: Deps, body: LoginBody, ip: string): Promise<LoginOutcome> {
  const email = body.email.toLowerCase();
  await hitRateLimit(db, LIMITS.loginPerIp, ip);
  await checkRateLimit(db, LIMITS.failedLoginPerAccount, email);
  const user = await users.findUserByEmail(db, email);
  const valid = await verifyPassword(user?.password_hash ?? null, body.password);
  if (!user || !valid || !user.active) {
    await countFailure(db, email);
    throw new ApiError('INVALID_CREDENTIALS', 'email or password is wrong');
  }
  await assertOrganizationEnabled(db, user);
  return sessionOrChallenge(deps, user);
}

export async function loginWithMfa(
  db: Executor,
  deps: Deps,
  body: LoginMfaBody,
  ip: string,
): Promise<Session> {
  await hitRateLimit(db, LIMITS.loginPerIp, ip);
  const claims = await verifyToken(deps.keyring, 'mfa', body.mfa_token);
  if (!claims) throw new ApiError('INVALID_CREDENTIALS', 'the MFA token is invalid or expired');
  await checkRateLimit(db, LIMITS.failedLoginPerAccount, claims.userId);
  const session = await db.transaction().execute(async (tx) => {
    const user = await users.lockUser(tx, claims.userId);
    if (
      !user?.active ||
      !user.mfa_enabled ||
      user.mfa_secret === null ||
      user.session_version !== claims.sessionVersion
    ) {
      throw new ApiError('INVALID_CREDENTIALS', 'the MFA token is invalid or expired');
    }
    const step = totpStep(body.code, deps.keyring.decrypt(user.mfa_secret));
    if (step === undefined || (user.mfa_last_step !== null && step <= Number(user.mfa_last_step))) {
      return undefined;
    }
    await assertOrganizationEnabled(tx, user);
    const updated = await users.updateCredentials(
      tx,
      user.id,
      { mfa_last_step: step },
      { revokeSessions: false },
    );
    return issueSession(deps, updated);
  });
  if (!session) {
    await countFailure(db, claims.userId);
    throw new ApiError('INVALID_CREDENTIALS', 'the code is wrong or was already used');
  }
  return session;
}

/**
 * Counts a failed attempt against the account. Called once the request's transaction has ended:
 * the hit takes a pool connection of its own, and waiting for one while holding a user row lock
 * deadlocks once concurrent attempts on that row hold every connection of the pool.
 */
async function countFailure(db: Executor, account: string): Promise<void> {
  try {
    await hitRateLimit(db, LIMITS.failedLoginPerAccount, account);
  } catch (error) {
    // Reaching the limit with this failure still answers the failure; the next attempt is refused.
    if (!(error instanceof ApiError && error.code === 'RATE_LIMITED')) throw error;
  }
}

/** Confirms an invited user's email with the emailed token and sets the first password. */
export async function verifyUser(
  db: Executor,
  deps: Deps,
  body: VerifyUserBody,
  ip: string,
): Promise<LoginOutcome> {
  await hitRateLimit(db, LIMITS.resetPerIp, ip);
  return db.transaction().execute(async (tx) => {
    const user = await users.findUserByEmail(tx, body.email);
    const tokenUser = await users.userOfToken(tx, 'VERIFY', body.token);
    if (!user || tokenUser !== user.id || !user.active) {
      throw new ApiError('INVALID_CREDENTIALS', 'the verification token is invalid or expired');
    }
    // Consumed atomically: of two concurrent verifications with one token, only one succeeds.
    if (!(await users.consumeUserToken(tx, 'VERIFY', body.token))) {
      throw new ApiError('INVALID_CREDENTIALS', 'the verification token is invalid or expired');
    }
    await assertOrganizationEnabled(tx, user);
    const updated = await users.updateCredentials(
      tx,
      user.id,
      { password_hash: await hashPassword(body.password), verified_at: user.verified_at ?? new Date() },
      { revokeSessions: true },
    );
    return sessionOrChallenge(deps, updated);
  });
}

/** Always the same answer, whether or not the email belongs to an account with a password. */
export async function forgotPassword(
  db: Executor,
  deps: Deps,
  body: ForgotPasswordBody,
  ip: string,
): Promise<void> {
  const email = body.email.toLowerCase();
  await hitRateLimit(db, LIMITS.forgotPerIp, ip);
  await hitRateLimit(db, LIMITS.forgotPerAccount, email);
  await db.transaction().execute(async (tx) => {
    const user = await users.findUserByEmail(tx, email);
    // Only accounts that have a password can reset it (not invited users who never verified).
    if (!user?.active || user.password_hash === null) return;
    const organization = await findOrganization(tx, user.organization_id);
    if (!organization?.is_enabled) return;
    const { token, expiresAt } = await users.issueUserToken(
      tx,
      user.id,
      'RESET_PASSWORD',
      RESET_TOKEN_TTL_MS,
    );
    const resetUrl = new URL(`${deps.config.http.publicBaseUrl}/reset-password`);
    resetUrl.searchParams.set('token', token);
    await queueMail(tx, {
      organizationId: user.organization_id,
      templateType: 'FORGOT_PASSWORD_RESET',
      to: user.email,
      variables: {
        organization_name: organization.name,
        reset_url: resetUrl.toString(),
        expires_at: mailDate(expiresAt),
        email: user.email,
      },
    });
  });
}

export async function resetPassword(
  db: Executor,
  deps: Deps,
  body: ResetPasswordBody,
  ip: string,
): Promise<LoginOutcome> {
  await hitRateLimit(db, LIMITS.resetPerIp, ip);
  const pending = await users.userOfToken(db, 'RESET_PASSWORD', body.token);
  if (pending) await hitRateLimit(db, LIMITS.resetPerAccount, pending);
  return db.transaction().execute(async (tx) => {
    const userId = await users.consumeUserToken(tx, 'RESET_PASSWORD', body.token);
    const user = userId === undefined ? undefined : await users.lockUser(tx, userId);
    if (!user?.active) throw new ApiError('INVALID_CREDENTIALS', 'the reset token is invalid or expired');
    await assertOrganizationEnabled(tx, user);
    const updated = await users.updateCredentials(
      tx,
      user.id,
      {
        password_hash: await hashPassword(body.password),
      },
      { revokeSessions: true },
    );
    return sessionOrChallenge(deps, updated);
  });
}

export async function changePassword(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: ChangePasswordBody,
): Promise<Session> {
  // The same account key as log in (its lower-cased email), so both count towards one lock.
  const account = principal.email.toLowerCase();
  await checkRateLimit(db, LIMITS.failedLoginPerAccount, account);
  const wrongOldPassword = () =>
    new ApiError('VALIDATION_FAILED', 'old_password is not the current password', {
      fields: [{ path: '/old_password', message: 'is not the current password' }],
    });
  // Hashing is slow: it runs before the transaction, so no connection or row lock waits on it.
  const current = await users.findUserById(db, principal.userId);
  if (!current) throw new ApiError('UNAUTHENTICATED', 'the account no longer exists');
  if (!(await verifyPassword(current.password_hash, body.old_password))) {
    await countFailure(db, account);
    throw wrongOldPassword();
  }
  const passwordHash = await hashPassword(body.new_password);
  return db.transaction().execute(async (tx) => {
    const user = await users.lockUser(tx, principal.userId);
    if (!user) throw new ApiError('UNAUTHENTICATED', 'the account no longer exists');
    // Changed by a concurrent request since it was checked: old_password is no longer current.
    if (user.password_hash !== current.password_hash) throw wrongOldPassword();
    const updated = await users.updateCredentials(
      tx,
      user.id,
      { password_hash: passwordHash },
      { revokeSessions: true },
    );
    return issueSession(deps, updated);
  });
}

export async function startMfaEnrollment(
  db: Executor,
  deps: Deps,
  principal: Principal,
): Promise<{ secret: string; otpauth_url: string }> {
  const user = await users.findUserById(db, principal.userId);
  if (!user) throw new ApiError('UNAUTHENTICATED', 'the account no longer exists');
  if (user.mfa_enabled) throw new ApiError('INVALID_STATE', 'MFA is already on for this account');
  const secret = newTotpSecret();
  await users.updateCredentials(
    db,
    user.id,
    { mfa_pending_secret: deps.keyring.encrypt(secret) },
    { revokeSessions: false },
  );
  return { secret, otpauth_url: otpauthUrl(user.email, secret) };
}

/** Turns MFA on; every older token is revoked and a fresh session is returned. */
export async function confirmMfa(
  db: Executor,
  deps: Deps,
  principal: Principal,
  code: string,
): Promise<Session> {
  return db.transaction().execute(async (tx) => {
    const user = await users.lockUser(tx, principal.userId);
    if (!user) throw new ApiError('UNAUTHENTICATED', 'the account no longer exists');
    if (user.mfa_enabled) throw new ApiError('INVALID_STATE', 'MFA is already on for this account');
    if (user.mfa_pending_secret === null)
      throw new ApiError('INVALID_STATE', 'start MFA enrolment first (POST /v1/me/mfa)');
    const step = totpStep(code, deps.keyring.decrypt(user.mfa_pending_secret));
    if (step === undefined) {
      throw new ApiError('VALIDATION_FAILED', 'the code is wrong', {
        fields: [{ path: '/code', message: 'is wrong' }],
      });
    }
    const updated = await users.updateCredentials(
      tx,
      user.id,
      {
        mfa_enabled: true,
        mfa_secret: user.mfa_pending_secret,
        mfa_pending_secret: null,
        mfa_last_step: step,
      },
      { revokeSessions: true },
    );
    return issueSession(deps, updated);
  });
}

/** The caller's user and organization (GET /v1/me), read in one query. */
export async function getMe(
  db: Executor,
  principal: Principal,
): Promise<{
  user: ReturnType<typeof users.toUser>;
  organization: ReturnType<typeof toOrganization>;
}> {
  const row = await repo.findMe(db, principal.userId);
  if (!row) throw new ApiError('NOT_FOUND', 'user not found');
  return {
    user: users.toUser(row),
    organization: toOrganization({
      id: row.organization_id,
      name: row.org_name,
      is_enabled: row.org_is_enabled,
      mfa_required: row.org_mfa_required,
      network_ids: row.org_network_ids,
      card_provider_connect_types: row.org_card_provider_connect_types,
      identity_provider_id: row.org_identity_provider_id,
      auto_fund: row.org_auto_fund,
      domain: row.org_domain,
      hardware_wallet: row.org_hardware_wallet,
      payout_address: row.org_payout_address,
      platform_sale_fee: row.org_platform_sale_fee,
      created_at: row.org_created_at,
    }),
  };
}

/**
 * Resolves credentials to a principal, or undefined when they are missing, malformed, expired,
 * revoked, or belong to an inactive user or a disabled organization. A credential seen lately is
 * answered from `deps.credentials` (src/access/credential-cache.ts), without a query; either way
 * last_used / last_seen are written at most once a minute by this process.
 */
export async function authenticate(
  db: Executor,
  deps: Deps,
  credential: string,
): Promise<Principal | undefined> {
  const cache = deps.credentials;
  const now = Date.now();
  const apiKey = credential.startsWith(API_KEY_PREFIX);
  const digest = apiKey ? sha256(credential) : undefined;
  // API keys by digest (the key itself is never kept); access tokens as they are.
  const cacheKey = digest === undefined ? credential : digest.toString('base64');
  const cached = cache.get(cacheKey, now);
  if (cached !== undefined) {
    if (now - cached.touchedAt > LAST_SEEN_PRECISION_MS) {
      cached.touchedAt = now;
      const { principal } = cached;
      if (principal.apiKeyId !== undefined) await repo.touchApiKeyLastUsed(db, principal.apiKeyId);
      else await users.touchLastSeen(db, principal.userId);
    }
    return cached.principal;
  }
  const snapshot = cache.snapshot();
  if (digest !== undefined) {
    const row = await repo.findApiKeyCredential(db, digest);
    if (!row || row.revoked_at !== null || !row.active || !row.is_enabled) return undefined;
    if (row.expiration !== null && row.expiration.getTime() <= now) return undefined;
    let touchedAt = row.last_used?.getTime() ?? 0;
    if (now - touchedAt > LAST_SEEN_PRECISION_MS) {
      await repo.touchApiKeyLastUsed(db, row.api_key_id);
      touchedAt = now;
    }
    const principal = principalOf(row, 'api_key', row.api_key_id);
    cache.set(
      snapshot,
      cacheKey,
      principal,
      row.expiration?.getTime() ?? Number.POSITIVE_INFINITY,
      touchedAt,
    );
    return principal;
  }
  const claims = await verifyToken(deps.keyring, 'access', credential);
  if (!claims) return undefined;
  const row = await repo.findSessionCredential(db, claims.userId);
  if (!row?.active || !row.is_enabled || row.session_version !== claims.sessionVersion) return undefined;
  // last_seen is kept to the minute: most requests read it and write nothing.
  let touchedAt = row.last_seen?.getTime() ?? 0;
  if (now - touchedAt > LAST_SEEN_PRECISION_MS) {
    await users.touchLastSeen(db, row.user_id);
    touchedAt = now;
  }
  const principal = principalOf(row, 'access_token', undefined);
  cache.set(snapshot, cacheKey, principal, claims.expiresAt, touchedAt);
  return principal;
}

function principalOf(
  row: {
    user_id: string;
    email: string;
    role_id: string;
    organization_id: string;
    mfa_enabled: boolean;
    mfa_required: boolean;
  },
  via: Principal['via'],
  apiKeyId: string | undefined,
): Principal {
  const role = roleNameOf(row.role_id);
  return {
    userId: row.user_id,
    email: row.email,
    organizationId: row.organization_id,
    role,
    permissions: new Set(ROLE_PERMISSIONS[role]),
    via,
    apiKeyId,
    mfaEnabled: row.mfa_enabled,
    organizationMfaRequired: row.mfa_required,
  };
}

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    await argon2.verify(await dummyPasswordHash(), password);
    return false;
  }
  return argon2.verify(hash, password);
}
