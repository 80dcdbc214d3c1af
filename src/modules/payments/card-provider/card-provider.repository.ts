import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import { hotQuery } from '../../../db/prepared.ts';
import type {
  CardProviderConnectedAccountRow,
  CardProviderConnectType,
  CardProviderMode,
  CardProviderPlatformAccountRow,
} from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export interface PlatformAccountValues {
  name: string;
  mode: CardProviderMode;
  publishable_key: string;
  secret_key_encrypted: string;
  card_provider_account_id: string;
  session_timeout_minutes: number;
  fee_percentage_bps: number | null;
  config: Record<string, unknown> | null;
  account_webhook_endpoint_secret_encrypted: string | null;
  connect_webhook_endpoint_secret_encrypted: string | null;
}

function columns(values: PlatformAccountValues) {
  return { ...values, config: values.config === null ? null : JSON.stringify(values.config) };
}

/** Undefined when the name is taken (the unique index decides, also under a race). */
export function insertPlatformAccount(
  db: Executor,
  id: string,
  values: PlatformAccountValues,
): Promise<CardProviderPlatformAccountRow | undefined> {
  return db
    .insertInto('card_provider_platform_accounts')
    .values({ id, ...columns(values) })
    .onConflict((oc) => oc.column('name').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findPlatformAccount(
  db: Executor,
  id: string,
): Promise<CardProviderPlatformAccountRow | undefined> {
  return db.selectFrom('card_provider_platform_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findPlatformAccountForUpdate(
  db: Tx,
  id: string,
): Promise<CardProviderPlatformAccountRow | undefined> {
  return db
    .selectFrom('card_provider_platform_accounts')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Undefined when the new name is another account's. */
export async function updatePlatformAccount(
  db: Executor,
  id: string,
  values: PlatformAccountValues,
): Promise<CardProviderPlatformAccountRow | undefined> {
  const taken = await db
    .selectFrom('card_provider_platform_accounts')
    .select('id')
    .where('name', '=', values.name)
    .where('id', '<>', id)
    .executeTakeFirst();
  if (taken) return undefined;
  return db
    .updateTable('card_provider_platform_accounts')
    .set({ ...columns(values), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listPlatformAccounts(
  db: Executor,
  page: PageParams,
  filters: { mode: CardProviderMode | undefined },
): Promise<PageResult<CardProviderPlatformAccountRow>> {
  let query = db.selectFrom('card_provider_platform_accounts').selectAll();
  if (filters.mode !== undefined) query = query.where('mode', '=', filters.mode);
  return paginate(query, {
    page,
    filters,
    sortColumn: 'card_provider_platform_accounts.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'card_provider_platform_accounts.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

export interface OrganizationAccountRow {
  id: string;
  name: string;
  mode: CardProviderMode;
  publishable_key: string;
  enabled: boolean;
  created_at: Date;
}

/** Every platform account, with whether the organization may use it. */
export function listOrganizationAccounts(
  db: Executor,
  organizationId: string,
  page: PageParams,
  filters: { enabled: boolean | undefined },
): Promise<PageResult<OrganizationAccountRow>> {
  let query = db
    .selectFrom('card_provider_platform_accounts as p')
    .leftJoin('organization_card_provider_accounts as o', (join) =>
      join
        .onRef('o.platform_card_provider_account_id', '=', 'p.id')
        .on('o.organization_id', '=', organizationId),
    )
    .select([
      'p.id',
      'p.name',
      'p.mode',
      'p.publishable_key',
      'p.created_at',
      sql<boolean>`coalesce(o.enabled, false)`.as('enabled'),
    ]);
  if (filters.enabled !== undefined)
    query = query.where(sql<boolean>`coalesce(o.enabled, false)`, '=', filters.enabled);
  return paginate(query, {
    page,
    filters: { ...filters, organizationId },
    sortColumn: 'p.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'p.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

export async function isEnabledFor(
  db: Executor,
  organizationId: string,
  platformAccountId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('organization_card_provider_accounts')
    .select('enabled')
    .where('organization_id', '=', organizationId)
    .where('platform_card_provider_account_id', '=', platformAccountId)
    .executeTakeFirst();
  return row?.enabled === true;
}

export async function setEnabled(
  db: Executor,
  organizationId: string,
  platformAccountId: string,
  enabled: boolean,
): Promise<void> {
  await db
    .insertInto('organization_card_provider_accounts')
    .values({
      organization_id: organizationId,
      platform_card_provider_account_id: platformAccountId,
      enabled,
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'platform_card_provider_account_id'])
        .doUpdateSet({ enabled, updated_at: sql<Date>`now()` }),
    )
    .execute();
}

/** The organization's current connected account. */
export function findConnectedAccount(
  db: Executor,
  organizationId: string,
): Promise<CardProviderConnectedAccountRow | undefined> {
  return db
    .selectFrom('card_provider_connected_accounts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('disconnected_at', 'is', null)
    .executeTakeFirst();
}

const cardSaleSetup = hotQuery((db, organizationId: string) =>
  db
    .selectFrom('card_provider_connected_accounts as a')
    .innerJoin('card_provider_platform_accounts as p', 'p.id', 'a.platform_card_provider_account_id')
    .innerJoin('organizations as o', 'o.id', 'a.organization_id')
    .leftJoin('organization_card_provider_accounts as e', (join) =>
      join
        .onRef('e.organization_id', '=', 'a.organization_id')
        .onRef('e.platform_card_provider_account_id', '=', 'a.platform_card_provider_account_id'),
    )
    .selectAll('p')
    .select([
      'a.organization_id',
      'a.platform_card_provider_account_id',
      'a.account_id',
      'a.connect_type',
      'a.charges_enabled',
      'a.details_submitted',
      'a.disconnected_at',
      'a.created_at as account_created_at',
      'a.updated_at as account_updated_at',
      'e.enabled',
      'o.platform_sale_fee',
    ])
    .where('a.organization_id', '=', organizationId)
    .where('a.disconnected_at', 'is', null),
);

/** What a card sale of an organization runs on (findCardSaleSetup). */
export interface CardSaleSetup {
  /** The organization's current connected account. */
  account: CardProviderConnectedAccountRow;
  /** The platform account the connected account is on. */
  platform: CardProviderPlatformAccountRow;
  /** Whether the platform still lets the organization use that platform account. */
  enabled: boolean;
  /** The organization's platform_sale_fee (basis points). */
  platformSaleFee: number;
}

/**
 * The organization's current connected account with its platform account, whether that is
 * enabled for the organization and the organization's sale fee, in one read (prepared: every
 * card sale makes it); undefined without a current connected account.
 */
export async function findCardSaleSetup(
  db: Executor,
  organizationId: string,
): Promise<CardSaleSetup | undefined> {
  const [row] = await cardSaleSetup(db, organizationId);
  if (!row) return undefined;
  const {
    organization_id,
    platform_card_provider_account_id,
    account_id,
    connect_type,
    charges_enabled,
    details_submitted,
    disconnected_at,
    account_created_at,
    account_updated_at,
    enabled,
    platform_sale_fee,
    ...platform
  } = row;
  return {
    account: {
      organization_id,
      platform_card_provider_account_id,
      account_id,
      connect_type,
      charges_enabled,
      details_submitted,
      disconnected_at,
      created_at: account_created_at,
      updated_at: account_updated_at,
    },
    platform,
    enabled: enabled === true,
    platformSaleFee: platform_sale_fee,
  };
}

/** One of the organization's connected accounts, current or disconnected. */
export function findOrganizationAccount(
  db: Executor,
  organizationId: string,
  accountId: string,
): Promise<CardProviderConnectedAccountRow | undefined> {
  return db
    .selectFrom('card_provider_connected_accounts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** The connected accounts with this provider id (current or not), whichever platform account. */
export function findConnectedAccountsById(
  db: Executor,
  accountId: string,
): Promise<CardProviderConnectedAccountRow[]> {
  return db
    .selectFrom('card_provider_connected_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .execute();
}

export function insertConnectedAccount(
  db: Executor,
  row: {
    organization_id: string;
    platform_card_provider_account_id: string;
    account_id: string;
    connect_type: CardProviderConnectType;
    charges_enabled: boolean;
    details_submitted: boolean;
  },
): Promise<CardProviderConnectedAccountRow> {
  return db
    .insertInto('card_provider_connected_accounts')
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Updates the state of the organization's connected account if it is still `accountId`. */
export async function setConnectedAccountState(
  db: Executor,
  organizationId: string,
  accountId: string,
  state: { charges_enabled: boolean; details_submitted: boolean },
): Promise<boolean> {
  const result = await db
    .updateTable('card_provider_connected_accounts')
    .set({ ...state, updated_at: sql<Date>`now()` })
    .where('organization_id', '=', organizationId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The organization's current account becomes a disconnected one (kept for its PaymentIntents). */
export async function disconnectAccount(db: Executor, organizationId: string): Promise<void> {
  await db
    .updateTable('card_provider_connected_accounts')
    .set({ disconnected_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('organization_id', '=', organizationId)
    .where('disconnected_at', 'is', null)
    .execute();
}

/**
 * The organization's claim to create its connected account on the platform account: made once
 * (`key` is kept while the claim lives), so every call for it carries the same idempotency key.
 */
export async function claimAccountCreation(
  db: Executor,
  organizationId: string,
  platformAccountId: string,
  key: string,
): Promise<string> {
  await db
    .insertInto('card_provider_account_claims')
    .values({
      organization_id: organizationId,
      platform_card_provider_account_id: platformAccountId,
      idempotency_key: key,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'platform_card_provider_account_id']).doNothing())
    .execute();
  const claim = await db
    .selectFrom('card_provider_account_claims')
    .select('idempotency_key')
    .where('organization_id', '=', organizationId)
    .where('platform_card_provider_account_id', '=', platformAccountId)
    .executeTakeFirstOrThrow();
  return claim.idempotency_key;
}

/** The claim is done: its account is recorded. */
export async function deleteAccountClaim(db: Executor, organizationId: string, platformAccountId: string) {
  await db
    .deleteFrom('card_provider_account_claims')
    .where('organization_id', '=', organizationId)
    .where('platform_card_provider_account_id', '=', platformAccountId)
    .execute();
}

/** Serialises set-ups of one organization (two concurrent ones never make two accounts). */
export async function lockOrganizationSetup(db: Tx, organizationId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`card-provider-setup:${organizationId}`}, 0))`.execute(
    db,
  );
}
