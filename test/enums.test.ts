import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import * as enums from '../src/db/enums.ts';
import { createTestDatabase } from './harness.ts';

/** Every column whose migrations CHECK it against a list of values, and its declaration. */
const CHECKED: Record<string, readonly string[]> = {
  'user_tokens.purpose': enums.USER_TOKEN_PURPOSES,
  'mail_outbox.status': enums.OUTBOX_STATUSES,
  'wallets.kind': enums.WALLET_KINDS,
  'transactions.state': enums.TRANSACTION_STATES,
  'transactions.on_chain_status': enums.ON_CHAIN_STATUSES,
  'collections.reveal_strategy': enums.REVEAL_STRATEGIES,
  'collections.deployment_type': enums.DEPLOYMENT_TYPES,
  'collections.deployment_status': enums.DEPLOYMENT_STATUSES,
  'collections.token_type': enums.TOKEN_TYPES,
  'collections.token_id_assignment_strategy': enums.TOKEN_ID_ASSIGNMENT_STRATEGIES,

  'items.token_status': enums.TOKEN_STATUSES,
  'item_reservations.kind': enums.RESERVATION_KINDS,
  'mint_requests.state': enums.REQUEST_STATES,
  'transfer_requests.state': enums.REQUEST_STATES,
  'mint_requests.owner_kind': enums.TOKEN_FLOW_OWNER_KINDS,
  'transfer_requests.owner_kind': enums.TOKEN_FLOW_OWNER_KINDS,
  'email_integrations.provider': enums.EMAIL_PROVIDERS,
  'email_templates.template_type': enums.TEMPLATE_TYPES,
  'email_claims.tx_payer': enums.TX_PAYERS,
  'email_claims.deactivation_reason': enums.CLAIM_DEACTIVATION_REASONS,
  'webhook_deliveries.status': enums.WEBHOOK_DELIVERY_STATUSES,
  'listings.status': enums.LISTING_STATUSES,
  'purchase_intents.status': enums.PURCHASE_INTENT_STATUSES,
  'purchase_intents.fulfillment_status': enums.FULFILLMENT_STATUSES,
  'purchase_intents.fulfillment_method': enums.FULFILLMENT_METHODS,
  'purchase_intents.payment_provider': enums.PAYMENT_PROVIDERS,
  'mint_vouchers.status': enums.MINT_VOUCHER_STATUSES,
  'mint_vouchers.holder_kind': enums.VOUCHER_HOLDER_KINDS,
  'card_provider_platform_accounts.mode': enums.CARD_PROVIDER_MODES,
  'card_provider_connected_accounts.connect_type': enums.CARD_PROVIDER_CONNECT_TYPES,
};

/** Declarations the database does not CHECK: the column exists, the service alone keeps it. */
const UNCHECKED: Record<string, readonly string[]> = {
  'transactions.type': enums.TRANSACTION_TYPES,
  'organizations.card_provider_connect_types': enums.CARD_PROVIDER_CONNECT_TYPES,
  // gasStrategy.type inside the JSON config.
  'networks.config': enums.GAS_STRATEGY_TYPES,
  'webhook_events.type': enums.WEBHOOK_EVENT_TYPES,
  'crypto_provider_configs.network': enums.CRYPTO_PROVIDER_NETWORKS,
};

interface Check {
  table: string;
  columns: string[];
  definition: string;
}

/** `col IN ('A', 'B')` reads back as `col = ANY (ARRAY['A'::text, ...])`, one value as `col = 'A'::text`. */
const IN_LIST = /^CHECK \(\((\w+) = ANY \(ARRAY\[(.*)\]\)\)\)$/;
const ONE_VALUE = /^CHECK \(\((\w+) = ('(?:[^']|'')*'::text)\)\)$/;
const LITERAL = /'((?:[^']|'')*)'::text/g;

function isEnumLike(check: Check): boolean {
  return check.columns.length === 1 && /= ANY \(ARRAY\[|= '/.test(check.definition);
}

/** The values an enum-like CHECK allows; throws on one of another form, so none goes unread. */
function allowedValues(check: Check): string[] {
  const match = IN_LIST.exec(check.definition) ?? ONE_VALUE.exec(check.definition);
  assert.ok(match, `${check.table}: CHECK not of the form col IN (...): ${check.definition}`);
  assert.equal(match[1], check.columns[0], check.definition);
  const values = [...(match[2] as string).matchAll(LITERAL)].map((m) =>
    (m[1] as string).replaceAll("''", "'"),
  );
  assert.ok(values.length > 0, check.definition);
  return values;
}

const sorted = (values: readonly string[]) => [...values].sort();

describe('database enums (src/db/enums.ts) against the migrations', () => {
  let drop: () => Promise<void>;
  let client: pg.Client;
  let checks: Check[];
  let columns: Set<string>;

  before(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const result = await client.query<Check>(
      `SELECT c.relname AS table,
              array_agg(a.attname::text ORDER BY a.attnum) AS columns,
              pg_get_constraintdef(con.oid) AS definition
         FROM pg_constraint con
         JOIN pg_class c ON c.oid = con.conrelid
         JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = ANY (con.conkey)
        WHERE con.contype = 'c' AND c.relnamespace = 'public'::regnamespace
        GROUP BY con.oid, c.relname`,
    );
    checks = result.rows;
    const found = await client.query<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name
         FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    columns = new Set(found.rows.map((r) => r.name));
  });
  after(async () => {
    await client?.end();
    await drop?.();
  });

  const enumChecks = () =>
    checks.filter(isEnumLike).map((check) => ({
      column: `${check.table}.${check.columns[0]}`,
      values: allowedValues(check),
    }));

  it('reads the CHECK constraints of the migrated schema', () => {
    assert.ok(enumChecks().length >= Object.keys(CHECKED).length, JSON.stringify(checks));
  });

  it('declares exactly the values each column CHECK allows, column by column', () => {
    const byColumn = new Map<string, string[][]>();
    for (const { column, values } of enumChecks()) {
      byColumn.set(column, [...(byColumn.get(column) ?? []), values]);
    }
    for (const [column, declared] of Object.entries(CHECKED)) {
      const found = byColumn.get(column);
      assert.ok(found, `${column}: no CHECK constraint lists its values`);
      for (const values of found) {
        assert.deepEqual(
          sorted(declared),
          sorted(values),
          `${column}: declared (actual) vs CHECK (expected)`,
        );
      }
    }
  });

  it('has a declaration for every enum-like CHECK in the database (a new one must be declared)', () => {
    const undeclared = enumChecks()
      .map(({ column }) => column)
      .filter((column) => !(column in CHECKED));
    assert.deepEqual(undeclared, [], 'add these columns to src/db/enums.ts and to CHECKED here');
  });

  it('names real columns for the declarations the database does not check, and none of them has a CHECK', () => {
    const checked = new Set(enumChecks().map(({ column }) => column));
    for (const column of Object.keys(UNCHECKED)) {
      assert.ok(columns.has(column), `${column} is not a column`);
      assert.ok(!checked.has(column), `${column} has a CHECK now: move it to CHECKED`);
    }
  });

  it('maps every declaration of src/db/enums.ts, each without duplicates', () => {
    const mapped = new Set([...Object.values(CHECKED), ...Object.values(UNCHECKED)]);
    for (const [name, values] of Object.entries(enums)) {
      assert.ok(mapped.has(values), `${name} is mapped to no column`);
      assert.equal(new Set(values).size, values.length, `${name} repeats a value`);
    }
  });
});
