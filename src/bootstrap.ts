import { sql } from 'kysely';
import { ROLE_IDS } from './access/permissions.ts';
import type { Executor } from './db/executor.ts';
import type { Config } from './lib/config.ts';
import { randomToken, uuidv7 } from './lib/ids.ts';
import { createKeyring } from './lib/secrets.ts';
import { hashPassword } from './modules/platform/auth/auth.service.ts';
import { createOrganization } from './modules/platform/organizations/organizations.service.ts';
import { countUsers, createUser } from './modules/platform/users/users.service.ts';

const BOOTSTRAP_LOCK_KEY = 7_301_955_212;
// Log in validates `format: email`, which needs a dot in the domain (`admin@localhost` could
// never log in); `.localhost` is reserved (RFC 6761), so this is never someone's real address.
export const GENERATED_ADMIN_EMAIL = 'admin@platform.localhost';

export interface BootstrapResult {
  email: string;
  /** Set only when the password was generated (embedded mode), to be printed once. */
  generatedPassword: string | undefined;
  organizationId: string;
}

/**
 * docs/api.md#authentication-and-roles: with no user at all, create the first platform admin and
 * its organization, from BOOTSTRAP_ADMIN_* or, in the embedded mode, generated. Runs under a lock
 * so two instances starting together create one admin.
 */
export async function bootstrapAdmin(db: Executor, config: Config): Promise<BootstrapResult | undefined> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`.execute(tx);
    if ((await countUsers(tx)) > 0) return undefined;
    let { email, password } = config.bootstrap;
    let generatedPassword: string | undefined;
    if (email === undefined || password === undefined) {
      if (!config.embedded) return undefined;
      email = GENERATED_ADMIN_EMAIL;
      password = generatedPassword = randomToken(18);
    }
    const organization = await createOrganization(
      tx,
      { keyring: createKeyring(config.secretKey) },
      {
        name: config.bootstrap.orgName,
      },
    );
    await createUser(tx, {
      id: uuidv7(),
      organization_id: organization.id,
      email,
      role_id: ROLE_IDS.PLATFORM_ADMIN,
      password_hash: await hashPassword(password),
      verified_at: new Date(),
    });
    return { email, generatedPassword, organizationId: organization.id };
  });
}
