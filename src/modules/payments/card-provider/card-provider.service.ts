import type { Kysely } from 'kysely';
import type { Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  CardProviderConnectedAccountRow,
  CardProviderPlatformAccountRow,
  Database,
} from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { type CardPlatformCredentials, CardProviderError } from '../../../providers/card/card-payments.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import * as repo from './card-provider.repository.ts';
import type {
  CardProviderCommand,
  CardProviderStatus,
  CreatePlatformAccountBody,
  EditPlatformAccountBody,
  OrganizationCardProviderAccount,
  PlatformCardProviderAccount,
  SetupBody,
} from './card-provider.schemas.ts';

/** The wire shape of a full platform account: never a secret. */
export function toPlatformAccount(row: CardProviderPlatformAccountRow): PlatformCardProviderAccount {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    publishable_key: row.publishable_key,
    session_timeout_minutes: row.session_timeout_minutes,
    card_provider_account_id: row.card_provider_account_id,
    fee_percentage_bps: row.fee_percentage_bps,
    config: row.config,
  };
}

function toOrganizationAccount(
  row: Pick<CardProviderPlatformAccountRow, 'id' | 'name' | 'mode' | 'publishable_key'>,
  enabled: boolean,
): OrganizationCardProviderAccount {
  return { id: row.id, name: row.name, mode: row.mode, publishable_key: row.publishable_key, enabled };
}

/** The credentials the provider's client calls with (the decrypted secret key). */
export function credentialsOf(
  deps: Pick<Deps, 'keyring'>,
  row: CardProviderPlatformAccountRow,
): CardPlatformCredentials {
  return { secretKey: deps.keyring.decrypt(row.secret_key_encrypted) };
}

/** The webhook endpoint secrets configured on the platform account (decrypted). */
export function webhookSecretsOf(deps: Pick<Deps, 'keyring'>, row: CardProviderPlatformAccountRow): string[] {
  return [row.account_webhook_endpoint_secret_encrypted, row.connect_webhook_endpoint_secret_encrypted]
    .filter((secret): secret is string => secret !== null)
    .map((secret) => deps.keyring.decrypt(secret));
}

/** A failure of the provider as the API answers it: 502 UPSTREAM_FAILED with its reason. */
export function upstreamFailed(error: unknown, what: string): ApiError {
  const reason =
    error instanceof CardProviderError ? error.message : 'the card provider could not be reached';
  return new ApiError('UPSTREAM_FAILED', `${what}: ${reason}`);
}

// ---------------------------------------------------------------------------------------------
// Platform accounts (platform admins)

const KEY_MODE = /^(?:pk|sk|rk)_(test|live)_/;

/** The keys' test/live must be the mode's: a LIVE account with test keys is a 400. */
function assertKeysMatchMode(mode: 'TEST' | 'LIVE', keys: Record<string, string>): void {
  const fields = Object.entries(keys)
    .filter(([, key]) => KEY_MODE.exec(key)?.[1]?.toUpperCase() !== mode)
    .map(([path]) => ({
      path: `/${path}`,
      message: `must be a ${mode.toLowerCase()} key (mode is ${mode})`,
    }));
  if (fields.length > 0)
    throw new ApiError('VALIDATION_FAILED', `the keys do not match the mode ${mode}`, { fields });
}

function nameTaken(name: string): ApiError {
  return new ApiError('ALREADY_EXISTS', `a platform card-provider account named "${name}" exists already`);
}

export async function createPlatformAccount(
  db: Executor,
  deps: Pick<Deps, 'keyring'>,
  body: CreatePlatformAccountBody,
): Promise<CardProviderPlatformAccountRow> {
  assertKeysMatchMode(body.mode, { publishable_key: body.publishable_key, secret_key: body.secret_key });
  const encrypt = (value: string | null | undefined) =>
    value === null || value === undefined ? null : deps.keyring.encrypt(value);
  const row = await repo.insertPlatformAccount(db, uuidv7(), {
    name: body.name,
    mode: body.mode,
    publishable_key: body.publishable_key,
    secret_key_encrypted: deps.keyring.encrypt(body.secret_key),
    card_provider_account_id: body.card_provider_account_id,
    session_timeout_minutes: body.session_timeout_minutes,
    fee_percentage_bps: body.fee_percentage_bps ?? null,
    config: body.config ?? null,
    account_webhook_endpoint_secret_encrypted: encrypt(body.account_webhook_endpoint_secret),
    connect_webhook_endpoint_secret_encrypted: encrypt(body.connect_webhook_endpoint_secret),
  });
  if (!row) throw nameTaken(body.name);
  return row;
}

export async function getPlatformAccount(db: Executor, id: string): Promise<CardProviderPlatformAccountRow> {
  const row = await repo.findPlatformAccount(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'platform card-provider account not found');
  return row;
}

export function listPlatformAccounts(
  db: Executor,
  page: PageParams,
  filters: { mode: 'TEST' | 'LIVE' | undefined },
): Promise<PageResult<CardProviderPlatformAccountRow>> {
  return repo.listPlatformAccounts(db, page, filters);
}

/** PATCH: given fields replace the stored ones (a secret omitted is kept, null removes a webhook secret). */
export async function editPlatformAccount(
  db: Tx,
  deps: Pick<Deps, 'keyring'>,
  id: string,
  body: EditPlatformAccountBody,
): Promise<CardProviderPlatformAccountRow> {
  const current = await repo.findPlatformAccountForUpdate(db, id);
  if (!current) throw new ApiError('NOT_FOUND', 'platform card-provider account not found');
  const mode = body.mode ?? current.mode;
  assertKeysMatchMode(mode, {
    publishable_key: body.publishable_key ?? current.publishable_key,
    secret_key: body.secret_key ?? deps.keyring.decrypt(current.secret_key_encrypted),
  });
  const secret = (value: string | null | undefined, stored: string | null) =>
    value === undefined ? stored : value === null ? null : deps.keyring.encrypt(value);
  const row = await repo.updatePlatformAccount(db, id, {
    name: body.name ?? current.name,
    mode,
    publishable_key: body.publishable_key ?? current.publishable_key,
    secret_key_encrypted:
      body.secret_key === undefined ? current.secret_key_encrypted : deps.keyring.encrypt(body.secret_key),
    card_provider_account_id: body.card_provider_account_id ?? current.card_provider_account_id,
    session_timeout_minutes: body.session_timeout_minutes ?? current.session_timeout_minutes,
    fee_percentage_bps:
      body.fee_percentage_bps === undefined ? current.fee_percentage_bps : body.fee_percentage_bps,
    config: body.config === undefined ? current.config : body.config,
    account_webhook_endpoint_secret_encrypted: secret(
      body.account_webhook_endpoint_secret,
      current.account_webhook_endpoint_secret_encrypted,
    ),
    connect_webhook_endpoint_secret_encrypted: secret(
      body.connect_webhook_endpoint_secret,
      current.connect_webhook_endpoint_secret_encrypted,
    ),
  });
  if (!row) throw nameTaken(body.name ?? current.name);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Organizations and their platform accounts

export async function listOrganizationAccounts(
  db: Executor,
  organizationId: string,
  page: PageParams,
  filters: { enabled: boolean | undefined },
): Promise<PageResult<OrganizationCardProviderAccount>> {
  const result = await repo.listOrganizationAccounts(db, organizationId, page, filters);
  return { ...result, results: result.results.map((row) => toOrganizationAccount(row, row.enabled)) };
}

/** The platform enables (or disables) a platform account for an organization. */
export async function setOrganizationAccount(
  db: Executor,
  organizationId: string,
  platformAccountId: string,
  enabled: boolean,
): Promise<OrganizationCardProviderAccount> {
  if (!(await findOrganization(db, organizationId)))
    throw new ApiError('NOT_FOUND', 'organization not found');
  const platform = await getPlatformAccount(db, platformAccountId);
  await repo.setEnabled(db, organizationId, platformAccountId, enabled);
  return toOrganizationAccount(platform, enabled);
}

// ---------------------------------------------------------------------------------------------
// The organization's connected account

export function isSetupComplete(account: CardProviderConnectedAccountRow): boolean {
  return account.charges_enabled && account.details_submitted;
}

export async function cardProviderStatus(db: Executor, organizationId: string): Promise<CardProviderStatus> {
  const account = await repo.findConnectedAccount(db, organizationId);
  if (!account)
    return {
      account_id: null,
      connect_type: null,
      setup_complete: false,
      platform_card_provider_account: null,
    };
  const platform = await getPlatformAccount(db, account.platform_card_provider_account_id);
  const enabled = await repo.isEnabledFor(db, organizationId, platform.id);
  return {
    account_id: account.account_id,
    connect_type: account.connect_type,
    setup_complete: isSetupComplete(account),
    platform_card_provider_account: toOrganizationAccount(platform, enabled),
  };
}

/**
 * Creates the organization's Standard connected account on the platform account (unless it has
 * one there), then an onboarding link. The provider is never called inside a database
 * transaction: the creation is claimed and committed first, with an idempotency key of its own
 * (per organization and platform account), then the provider is called with that key, then the
 * account is recorded. A call that failed or whose answer was lost (a crash between the call and
 * the record), and a link that failed after the account was recorded, are made again by the
 * next set-up, which gets the same account back: never a second one. Set-ups of one
 * organization are serialised around each database step.
 */
export async function setupCardProvider(
  db: Kysely<Database>,
  deps: Pick<Deps, 'keyring' | 'cardPayments' | 'config' | 'logger'>,
  principal: Principal,
  body: SetupBody,
): Promise<{ url: string }> {
  if (body.connect_type !== 'STANDARD')
    throw new ApiError(
      'VALIDATION_FAILED',
      `connect_type ${body.connect_type} is not supported: use STANDARD`,
      {
        fields: [{ path: '/connect_type', message: 'must be STANDARD' }],
      },
    );
  const organizationId = principal.organizationId;
  const claimed = await db.transaction().execute(async (tx) => {
    await repo.lockOrganizationSetup(tx, organizationId);
    const platform = await repo.findPlatformAccount(tx, body.platform_card_provider_account_id);
    if (!platform) throw new ApiError('NOT_FOUND', 'platform card-provider account not found');
    if (!(await repo.isEnabledFor(tx, organizationId, platform.id)))
      throw new ApiError(
        'CARD_PROVIDER_NOT_READY',
        'this platform card-provider account is not enabled for the organization (the platform enables it)',
      );
    const account = await currentAccountOn(tx, organizationId, platform.id);
    if (account) return { platform, account, key: undefined };
    const key = await repo.claimAccountCreation(
      tx,
      organizationId,
      platform.id,
      `connected-account:${organizationId}:${platform.id}:${uuidv7()}`,
    );
    return { platform, account: undefined, key };
  });
  const credentials = credentialsOf(deps, claimed.platform);
  let account = claimed.account;
  if (!account) {
    let created: Awaited<ReturnType<typeof deps.cardPayments.createConnectedAccount>>;
    try {
      created = await deps.cardPayments.createConnectedAccount(credentials, {
        type: 'standard',
        metadata: { organization_id: organizationId },
        idempotencyKey: claimed.key!,
      });
    } catch (error) {
      throw upstreamFailed(error, 'creating the connected account failed');
    }
    account = await db.transaction().execute(async (tx) => {
      await repo.lockOrganizationSetup(tx, organizationId);
      // A set-up that ran meanwhile recorded it (the same account: the same key).
      const recorded = await currentAccountOn(tx, organizationId, claimed.platform.id);
      if (recorded) return recorded;
      const inserted = await repo.insertConnectedAccount(tx, {
        organization_id: organizationId,
        platform_card_provider_account_id: claimed.platform.id,
        account_id: created.id,
        connect_type: 'STANDARD',
        charges_enabled: created.chargesEnabled,
        details_submitted: created.detailsSubmitted,
      });
      await repo.deleteAccountClaim(tx, organizationId, claimed.platform.id);
      return inserted;
    });
    deps.logger.info(
      { organizationId, accountId: account.account_id, platformAccountId: claimed.platform.id },
      'card provider: connected account created',
    );
  }
  const returnUrl = body.return_url ?? `${deps.config.http.publicBaseUrl}/`;
  try {
    return await deps.cardPayments.createAccountLink(credentials, {
      accountId: account.account_id,
      refreshUrl: returnUrl,
      returnUrl,
    });
  } catch (error) {
    throw upstreamFailed(error, 'creating the onboarding link failed');
  }
}

/**
 * The organization's current connected account when it is on `platformId`; 409 INVALID_STATE
 * when it is on another platform account.
 */
async function currentAccountOn(
  db: Executor,
  organizationId: string,
  platformId: string,
): Promise<CardProviderConnectedAccountRow | undefined> {
  const account = await repo.findConnectedAccount(db, organizationId);
  if (account && account.platform_card_provider_account_id !== platformId)
    throw new ApiError(
      'INVALID_STATE',
      'the organization has a connected account on another platform account: DISCONNECT it first',
    );
  return account;
}

/**
 * REFRESH reads the account's state from the provider (with no database transaction open) and
 * stores it on the account; DISCONNECT forgets the account as the
 * organization's (it is kept, disconnected, so PaymentIntents made on it can still be ended).
 */
export async function runCardProviderCommand(
  db: Kysely<Database>,
  deps: Pick<Deps, 'keyring' | 'cardPayments' | 'logger'>,
  principal: Principal,
  command: CardProviderCommand,
): Promise<CardProviderStatus> {
  const organizationId = principal.organizationId;
  if (command === 'DISCONNECT') {
    return db.transaction().execute(async (tx) => {
      await repo.lockOrganizationSetup(tx, organizationId);
      const account = await repo.findConnectedAccount(tx, organizationId);
      if (account) {
        await repo.disconnectAccount(tx, organizationId);
        deps.logger.info({ organizationId, accountId: account.account_id }, 'card provider: disconnected');
      }
      return cardProviderStatus(tx, organizationId);
    });
  }
  const account = await repo.findConnectedAccount(db, organizationId);
  if (!account)
    throw new ApiError(
      'CARD_PROVIDER_NOT_READY',
      'the organization has no connected account: set it up first',
    );
  const platform = await getPlatformAccount(db, account.platform_card_provider_account_id);
  let state: { chargesEnabled: boolean; detailsSubmitted: boolean };
  try {
    state = await deps.cardPayments.accountStatus(credentialsOf(deps, platform), account.account_id);
  } catch (error) {
    throw upstreamFailed(error, 'reading the connected account failed');
  }
  await repo.setConnectedAccountState(db, organizationId, account.account_id, {
    charges_enabled: state.chargesEnabled,
    details_submitted: state.detailsSubmitted,
  });
  return cardProviderStatus(db, organizationId);
}

/**
 * What a card sale of the organization runs on: its connected account, set up, on a platform
 * account still enabled for it (with the organization's sale fee). Else 422
 * CARD_PROVIDER_NOT_READY.
 */
export async function readyCardAccount(db: Executor, organizationId: string): Promise<repo.CardSaleSetup> {
  const setup = await repo.findCardSaleSetup(db, organizationId);
  if (!setup)
    throw new ApiError(
      'CARD_PROVIDER_NOT_READY',
      'the organization has not set up its card-provider account',
    );
  if (!isSetupComplete(setup.account))
    throw new ApiError(
      'CARD_PROVIDER_NOT_READY',
      "the organization's card-provider account is not ready yet (charges or details pending at the provider)",
    );
  if (!setup.enabled)
    throw new ApiError(
      'CARD_PROVIDER_NOT_READY',
      "the organization's platform card-provider account is no longer enabled for it",
    );
  return setup;
}

/** The connected account of the organization, if any (whatever its state). */
export function connectedAccountOf(
  db: Executor,
  organizationId: string,
): Promise<CardProviderConnectedAccountRow | undefined> {
  return repo.findConnectedAccount(db, organizationId);
}
