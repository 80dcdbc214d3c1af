import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { createTestDatabase } from '../../test/harness.ts';
import { createDatabase, type DatabaseHandle } from './database.ts';
import { executePrepared, hotQuery } from './prepared.ts';

interface Scratch {
  things: { id: number; name: string };
}

describe('prepared hot queries', () => {
  let database: DatabaseHandle;
  let db: Kysely<Scratch>;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    // One connection: what one statement prepared, the next one finds.
    database = createDatabase(created.url, { max: 1 });
    db = database.db as unknown as Kysely<Scratch>;
    await sql`CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL)`.execute(db);
    await sql`INSERT INTO things VALUES (1, 'one'), (2, 'two')`.execute(db);
  });
  after(async () => {
    await database.destroy();
    await drop();
  });

  const thingById = hotQuery((executor, id: number) =>
    (executor as unknown as Kysely<Scratch>).selectFrom('things').selectAll().where('id', '=', id),
  );
  const prepared = async () =>
    (
      await sql<{ name: string; statement: string }>`
        SELECT name, statement FROM pg_prepared_statements ORDER BY name`.execute(db)
    ).rows;

  it('answers each call with its own parameters, from a statement prepared once on the connection', async () => {
    assert.deepEqual(await thingById(database.db, 1), [{ id: 1, name: 'one' }]);
    assert.deepEqual(await thingById(database.db, 2), [{ id: 2, name: 'two' }]);
    assert.deepEqual(await thingById(database.db, 3), []);
    const statements = (await prepared()).filter((p) => p.statement.includes('"things"'));
    assert.equal(statements.length, 1, JSON.stringify(statements));
    assert.match(statements[0]!.name, /^hot_\d+$/);
  });

  it('prepares a raw statement given to executePrepared, and nothing that is not registered', async () => {
    const { rows } = await executePrepared(
      database.db,
      sql<{ n: number }>`SELECT count(*)::int AS n FROM things WHERE id > ${0}`,
    );
    assert.deepEqual(rows, [{ n: 2 }]);
    await sql`SELECT name FROM things WHERE id = ${1}`.execute(db);
    const texts = (await prepared()).map((p) => p.statement);
    assert.ok(texts.some((t) => t.includes('count(*)::int AS n FROM things')));
    assert.ok(!texts.some((t) => t.includes('SELECT name FROM things')));
  });

  it('keeps answering after a migration changes the columns a prepared statement returns', async () => {
    assert.deepEqual(await thingById(database.db, 1), [{ id: 1, name: 'one' }]);
    await sql`ALTER TABLE things ADD COLUMN colour text NOT NULL DEFAULT 'blue'`.execute(db);
    assert.deepEqual(await thingById(database.db, 1), [{ id: 1, name: 'one', colour: 'blue' }]);
    assert.deepEqual(await thingById(database.db, 2), [{ id: 2, name: 'two', colour: 'blue' }]);
  });

  it('refuses a query that does not use its parameters once, in order', async () => {
    const twice = hotQuery((executor, id: number) =>
      (executor as unknown as Kysely<Scratch>)
        .selectFrom('things')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', id), eb('id', '=', id + 1)])),
    );
    await assert.rejects(twice(database.db, 1), /must use its parameters once, in order/);
  });
});
