import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the running code is: the TypeScript sources (src/, run by tsx in development and tests) or
 * the production build (dist/main.js, `npm start`), where every module of src/ shares one file and
 * so one `import.meta`. Files read by path at run time (migrations, web assets) are found from
 * here, never relative to the module that reads them.
 */
export const COMPILED = !import.meta.url.endsWith('.ts');

/** The project's root: the first folder above this code that holds package.json. */
export const ROOT = findRoot(import.meta.dirname);

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
