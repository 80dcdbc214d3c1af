import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run structure` (part of `npm run check`): no source file under src/ longer than
 * MAX_LINES, tests included; a file that grows past it is split along its seams
 * (ARCHITECTURE.md). The table types of the database are one declaration, the exception.
 */
export const MAX_LINES = 600;
const EXCEPTIONS = new Set(['src/db/schema.ts']);
const SOURCE = /\.(ts|css|html)$/;

/** Every file under `dir` (relative to `root`) longer than MAX_LINES, with its length. */
export function oversizedFiles(root: string, dir = 'src'): { file: string; lines: number }[] {
  const found: { file: string; lines: number }[] = [];
  const visit = (relative: string) => {
    const full = path.join(root, relative);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) visit(path.join(relative, entry));
      return;
    }
    if (!SOURCE.test(relative) || EXCEPTIONS.has(relative.split(path.sep).join('/'))) return;
    const text = readFileSync(full, 'utf8');
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    if (lines > MAX_LINES) found.push({ file: relative, lines });
  };
  visit(dir);
  return found;
}

if (process.argv[1] === import.meta.filename) {
  const root = path.resolve(import.meta.dirname, '..');
  const oversized = oversizedFiles(root);
  for (const { file, lines } of oversized)
    process.stderr.write(`${file}: ${lines} lines, more than ${MAX_LINES}: split it along its seams\n`);
  process.exit(oversized.length === 0 ? 0 : 1);
}
