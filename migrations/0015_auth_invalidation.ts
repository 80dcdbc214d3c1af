import { type Kysely, sql } from 'kysely';

// Every change to what authentication answers NOTIFYs channel `auth_invalidation`, from a trigger,
// so it is sent in the transaction of the change (delivered only if it commits) whichever code or
// SQL made it: each API instance drops its cached principals of that key, user or organization
// (src/access/credential-cache.ts). The payload is `api_key:<id>`, `user:<id>` or
// `organization:<id>`. last_used, last_seen and the other columns authentication does not read
// notify nothing, so the throttled touches of authenticated reads stay quiet.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION auth_invalidate_api_key() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'DELETE' OR OLD.key_hash IS DISTINCT FROM NEW.key_hash
        OR OLD.user_id IS DISTINCT FROM NEW.user_id
        OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
        OR OLD.expiration IS DISTINCT FROM NEW.expiration THEN
        PERFORM pg_notify('auth_invalidation', 'api_key:' || OLD.id);
      END IF;
      RETURN NULL;
    END $fn$;
    CREATE TRIGGER api_keys_auth_invalidation AFTER UPDATE OR DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION auth_invalidate_api_key();

    CREATE FUNCTION auth_invalidate_user() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'DELETE' OR OLD.email IS DISTINCT FROM NEW.email
        OR OLD.active IS DISTINCT FROM NEW.active
        OR OLD.role_id IS DISTINCT FROM NEW.role_id
        OR OLD.organization_id IS DISTINCT FROM NEW.organization_id
        OR OLD.password_hash IS DISTINCT FROM NEW.password_hash
        OR OLD.mfa_enabled IS DISTINCT FROM NEW.mfa_enabled
        OR OLD.session_version IS DISTINCT FROM NEW.session_version THEN
        PERFORM pg_notify('auth_invalidation', 'user:' || OLD.id);
      END IF;
      RETURN NULL;
    END $fn$;
    CREATE TRIGGER users_auth_invalidation AFTER UPDATE OR DELETE ON users
      FOR EACH ROW EXECUTE FUNCTION auth_invalidate_user();

    CREATE FUNCTION auth_invalidate_organization() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'DELETE' OR OLD.is_enabled IS DISTINCT FROM NEW.is_enabled
        OR OLD.mfa_required IS DISTINCT FROM NEW.mfa_required THEN
        PERFORM pg_notify('auth_invalidation', 'organization:' || OLD.id);
      END IF;
      RETURN NULL;
    END $fn$;
    CREATE TRIGGER organizations_auth_invalidation AFTER UPDATE OR DELETE ON organizations
      FOR EACH ROW EXECUTE FUNCTION auth_invalidate_organization();
  `.execute(db);
}
