import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Column types of the database, one interface per table (wire names are the column names). */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface OrganizationsTable {
  id: string;
  name: string;
  is_enabled: Generated<boolean>;
  mfa_required: Generated<boolean>;
  network_ids: Generated<number[]>;
  card_provider_connect_types: Generated<string[]>;
  identity_provider_id: string | null;
  auto_fund: Generated<boolean>;
  domain: string | null;
  hardware_wallet: Generated<boolean>;
  platform_sale_fee: Generated<number>;
  payout_address: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RolesTable {
  id: string;
  name: string;
  description: string;
  created_at: Timestamp;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  role_id: string;
  password_hash: string | null;
  active: Generated<boolean>;
  verified_at: NullableTimestamp;
  mfa_enabled: Generated<boolean>;
  mfa_secret: string | null;
  mfa_pending_secret: string | null;
  mfa_last_step: ColumnType<string | null, number | null | undefined, number | null>;
  session_version: Generated<number>;
  last_seen: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type UserTokenPurpose = 'VERIFY' | 'RESET_PASSWORD';

export interface UserTokensTable {
  id: string;
  user_id: string;
  purpose: UserTokenPurpose;
  token_hash: Buffer;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: Buffer;
  expiration: NullableTimestamp;
  last_used: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Timestamp;
}

export type OutboxStatus = 'PENDING' | 'SENT' | 'FAILED';

export interface MailOutboxTable {
  id: string;
  organization_id: string | null;
  template_type: string;
  to_address: string;
  subject: string;
  html: string;
  text: string;
  status: Generated<OutboxStatus>;
  attempts: Generated<number>;
  last_error: string | null;
  transport: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
}

export interface MailboxMessagesTable {
  id: string;
  outbox_id: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  method: string;
  path: string;
  request_hash: Buffer;
  status_code: number | null;
  response_body: string | null;
  response_content_type: string | null;
  locked_until: Timestamp;
  created_at: Timestamp;
}

export interface RateLimitBucketsTable {
  key: string;
  window_start: Timestamp;
  hits: number;
}

export interface Database {
  organizations: OrganizationsTable;
  roles: RolesTable;
  users: UsersTable;
  user_tokens: UserTokensTable;
  api_keys: ApiKeysTable;
  mail_outbox: MailOutboxTable;
  mailbox_messages: MailboxMessagesTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_buckets: RateLimitBucketsTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type NewOrganization = Insertable<OrganizationsTable>;
export type OrganizationUpdate = Updateable<OrganizationsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type MailOutboxRow = Selectable<MailOutboxTable>;
export type MailboxMessageRow = Selectable<MailboxMessagesTable>;
