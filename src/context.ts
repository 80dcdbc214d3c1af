import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/schema.ts';
import type { Keyring } from './lib/secrets.ts';

/** What services need from the process: passed in, never imported as globals. */
export interface AppContext {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly keyring: Keyring;
  readonly logger: Logger;
}
