import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { MAX_LINES, oversizedFiles } from '../scripts/file-sizes.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const CLI = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

/** A tree of `files` (path → text) in a folder of its own, with a tsconfig as the project's. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'structure-'));
  const all = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        noEmit: true,
      },
      include: ['src'],
    }),
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  trees.push(dir);
  return dir;
}
const trees: string[] = [];
after(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** The rules of the project's .dependency-cruiser.cjs that `files` break, each with its `from`. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = tree(files);
  const { stdout } = await run(
    process.execPath,
    [CLI, 'src', '--config', CONFIG, '--output-type', 'json', '--no-progress'],
    { cwd: dir, maxBuffer: 16 << 20 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const result = JSON.parse(stdout) as {
    summary: { violations: { rule: { name: string }; from: string }[] };
  };
  return result.summary.violations.map((v) => `${v.rule.name} ${v.from}`).sort();
}

const exported = (name: string) => `export const ${name} = 1;\n`;

describe('the structure check (npm run structure)', () => {
  it('passes a tree whose imports point down the tiers', async () => {
    assert.deepEqual(
      await violations({
        'src/lib/ids.ts': exported('ids'),
        'src/db/database.ts': `import { ids } from '../lib/ids.ts';\nexport const db = ids;\n`,
        'src/modules/platform/networks/networks.repository.ts': exported('rows'),
        'src/modules/platform/networks/networks.service.ts': `import { rows } from './networks.repository.ts';\nimport { db } from '../../../db/database.ts';\nexport const networks = rows + db;\n`,
        'src/modules/catalog/items/items.service.ts': `import { networks } from '../../platform/networks/networks.service.ts';\nexport const items = networks;\n`,
        'src/modules/catalog/items/routes/get-item.ts': `import { items } from '../items.service.ts';\nexport const route = items;\n`,
        'src/wiring/routes.ts': `import { route } from '../modules/catalog/items/routes/get-item.ts';\nexport const routes = [route];\n`,
      }),
      [],
    );
  });

  it('fails an import that points up the tiers', async () => {
    assert.deepEqual(
      await violations({
        'src/db/database.ts': exported('db'),
        'src/lib/ids.ts': `import { db } from '../db/database.ts';\nexport const ids = db;\n`,
      }),
      ['tier-order src/lib/ids.ts'],
    );
  });

  it('fails an import between siblings of one tier, and from a lower module to a higher one', async () => {
    assert.deepEqual(
      await violations({
        'src/chain/rpc.ts': exported('rpc'),
        'src/access/principal.ts': `import { rpc } from '../chain/rpc.ts';\nexport const p = rpc;\n`,
        'src/modules/sales/purchase-intents/purchase-intents.service.ts': exported('intents'),
        'src/modules/sales/listings/listings.service.ts': `import { intents } from '../purchase-intents/purchase-intents.service.ts';\nexport const l = intents;\n`,
      }),
      ['tier-order src/access/principal.ts', 'tier-order src/modules/sales/listings/listings.service.ts'],
    );
  });

  it('fails a cycle between files of one folder, type-only imports included', async () => {
    const found = await violations({
      'src/lib/a.ts': `import type { B } from './b.ts';\nexport type A = { b?: B };\n`,
      'src/lib/b.ts': `import type { A } from './a.ts';\nexport type B = { a?: A };\n`,
    });
    // A cycle is reported once, from one of its files.
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(found[0]!, /^no-circular src\/lib\/[ab]\.ts$/);
  });

  it("fails a lazy import() of the project's own code, even one that points down", async () => {
    assert.deepEqual(
      await violations({
        'src/lib/ids.ts': exported('ids'),
        'src/db/database.ts': `export async function db() {\n  return (await import('../lib/ids.ts')).ids;\n}\n`,
      }),
      ['no-lazy-import src/db/database.ts'],
    );
  });

  it("fails a module that reads another module's repository instead of its service", async () => {
    assert.deepEqual(
      await violations({
        'src/modules/catalog/collections/collections.repository.ts': exported('rows'),
        'src/modules/catalog/items/items.service.ts': `import { rows } from '../collections/collections.repository.ts';\nexport const items = rows;\n`,
      }),
      ['foreign-repository src/modules/catalog/items/items.service.ts'],
    );
  });

  it('fails a service that imports a route: routes and pages are leaves of the route list', async () => {
    assert.deepEqual(
      await violations({
        'src/modules/catalog/items/routes/get-item.ts': exported('route'),
        'src/modules/catalog/items/items.service.ts': `import { route } from './routes/get-item.ts';\nexport const items = route;\n`,
      }),
      ['leaves src/modules/catalog/items/items.service.ts'],
    );
  });

  it("fails a route that imports another module's route", async () => {
    assert.deepEqual(
      await violations({
        'src/modules/catalog/collections/routes/get-collection.ts': exported('collectionRoute'),
        'src/modules/catalog/items/routes/get-item.ts': `import { collectionRoute } from '../../collections/routes/get-collection.ts';\nexport const route = collectionRoute;\n`,
      }),
      ['leaves-apart src/modules/catalog/items/routes/get-item.ts'],
    );
  });

  it('fails service code that imports test code; a test and its set-up may', async () => {
    assert.deepEqual(
      await violations({
        'test/harness.ts': exported('harness'),
        'src/lib/ids.ts': `import { harness } from '../../test/harness.ts';\nexport const ids = harness;\n`,
        'src/lib/ids.test-setup.ts': `import { harness } from '../../test/harness.ts';\nexport const setup = harness;\n`,
        'src/lib/ids.test.ts': `import { setup } from './ids.test-setup.ts';\nexport const t = setup;\n`,
      }),
      ['no-test-code src/lib/ids.ts'],
    );
  });

  it('fails a folder that is not placed in the tiers', async () => {
    assert.deepEqual(
      await violations({
        'src/lib/ids.ts': exported('ids'),
        'src/extras/thing.ts': `import { ids } from '../lib/ids.ts';\nexport const thing = ids;\n`,
      }),
      ['unlisted-folder src/extras/thing.ts'],
    );
  });

  it(`finds every source file under src/ over ${MAX_LINES} lines, tests included, but the table types`, () => {
    const lines = (n: number) => 'x;\n'.repeat(n);
    const dir = tree({
      'src/lib/long.ts': lines(MAX_LINES + 1),
      'src/lib/long.test.ts': lines(MAX_LINES + 5),
      'src/lib/fits.ts': lines(MAX_LINES),
      'src/db/schema.ts': lines(MAX_LINES * 2),
    });
    assert.deepEqual(oversizedFiles(dir), [
      { file: path.join('src/lib/long.test.ts'), lines: MAX_LINES + 5 },
      { file: path.join('src/lib/long.ts'), lines: MAX_LINES + 1 },
    ]);
  });
});
