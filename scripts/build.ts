import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * `npm run build`: the production build that `npm start` runs with plain node (no TypeScript
 * loader in the process). src/main.ts is bundled into dist/main.js with every package left to
 * node_modules (`packages: 'external'`; the contract artifacts, imported as JSON, are inside), and
 * each migration becomes dist/migrations/NNNN_name.js, which the migrator loads by path when it
 * runs compiled (src/lib/paths.ts). Web assets and the browser scripts' sources are still read
 * from src/web/ at run time.
 *
 * `--if-stale` builds only when dist/main.js is missing or older than a file it is made from
 * (src/, migrations/, contracts/artifacts/, package.json, package-lock.json, this script), so
 * `npm start` on a fresh clone builds and a second start does not.
 */

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const output = path.join(dist, 'main.js');
const INPUTS = [
  'src',
  'migrations',
  'contracts/artifacts',
  'package.json',
  'package-lock.json',
  'scripts/build.ts',
];

function newestInput(): number {
  let newest = 0;
  const visit = (file: string) => {
    const stat = statSync(file);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(file)) visit(path.join(file, entry));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const input of INPUTS) {
    const file = path.join(root, input);
    if (existsSync(file)) visit(file);
  }
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(output) && statSync(output).mtimeMs >= newestInput()) {
  process.exit(0);
}

const started = Date.now();
rmSync(dist, { recursive: true, force: true });
const common = {
  absWorkingDir: root,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
} as const;
await build({ ...common, entryPoints: ['src/main.ts'], outfile: output, sourcemap: 'linked' });
const migrations = readdirSync(path.join(root, 'migrations')).filter((file) =>
  /^\d{4}_[\w-]+\.ts$/.test(file),
);
await build({
  ...common,
  entryPoints: migrations.map((file) => `migrations/${file}`),
  outdir: path.join(dist, 'migrations'),
});
process.stderr.write(`built dist/ in ${Date.now() - started} ms\n`);
