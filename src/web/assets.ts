import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { App } from '../http/types.ts';
import { ApiError } from '../lib/errors.ts';
import { ROOT } from '../lib/paths.ts';

/** Static files of the web pages, served by the service itself (no CDN, no third party). */
const ASSETS_DIR = path.join(ROOT, 'src/web/assets');
const ASSETS_PREFIX = '/assets/';

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// A fingerprinted name changes with the content, so it may be cached for good; a plain name is
// revalidated with its ETag on every use.
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly cacheControl: string;
}

interface Catalog {
  /** By the name in a URL: `site.css` and `site.<hash>.css` both. */
  readonly files: ReadonlyMap<string, Asset>;
  /** By file name: the fingerprinted URL pages link to. */
  readonly urls: ReadonlyMap<string, string>;
}

let loaded: Catalog | undefined;

/** Read once: the folder is part of the source, a few small files held in memory. */
function catalog(): Catalog {
  if (loaded) return loaded;
  const files = new Map<string, Asset>();
  const urls = new Map<string, string>();
  for (const entry of readdirSync(ASSETS_DIR, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const body = readFileSync(path.join(ASSETS_DIR, entry.name));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const ext = path.extname(entry.name);
    const fingerprinted = `${path.basename(entry.name, ext)}.${hash}${ext}`;
    const common = {
      body,
      contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
      etag: `"${hash}"`,
    };
    files.set(entry.name, { ...common, cacheControl: REVALIDATE });
    files.set(fingerprinted, { ...common, cacheControl: IMMUTABLE });
    urls.set(entry.name, `${ASSETS_PREFIX}${fingerprinted}`);
  }
  loaded = { files, urls };
  return loaded;
}

/** The URL of a file of src/web/assets, fingerprinted by its content. */
export function assetUrl(name: string): string {
  const url = catalog().urls.get(name);
  if (!url) throw new Error(`no asset ${name} in src/web/assets`);
  return url;
}

/**
 * Browser scripts: TypeScript under src/web/client/ bundled by esbuild with what they import from
 * node_modules (viem's wallet code), once per process on first use (most processes never serve a
 * page), held in memory and served like the files above. A bundle is named by its entry, so
 * `scriptUrl('claim.js')` is `/assets/claim.<hash>.js`.
 */
const CLIENT_DIR = path.join(ROOT, 'src/web/client');
const SCRIPT_ENTRIES: Record<string, string> = { 'claim.js': 'claim.ts', 'checkout.js': 'checkout.ts' };

let scripts: Promise<Catalog> | undefined;

function bundledScripts(): Promise<Catalog> {
  scripts ??= bundle().catch((error: unknown) => {
    scripts = undefined; // the next request tries again
    throw error;
  });
  return scripts;
}

async function bundle(): Promise<Catalog> {
  const files = new Map<string, Asset>();
  const urls = new Map<string, string>();
  for (const [name, entry] of Object.entries(SCRIPT_ENTRIES)) {
    const result = await build({
      entryPoints: [path.join(CLIENT_DIR, entry)],
      absWorkingDir: ROOT,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: ['es2022'],
      minify: true,
      legalComments: 'none',
      write: false,
      logLevel: 'silent',
    });
    const body = Buffer.from(result.outputFiles[0]!.contents);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const fingerprinted = `${path.basename(name, '.js')}.${hash}.js`;
    const common = { body, contentType: CONTENT_TYPES['.js']!, etag: `"${hash}"` };
    files.set(name, { ...common, cacheControl: REVALIDATE });
    files.set(fingerprinted, { ...common, cacheControl: IMMUTABLE });
    urls.set(name, `${ASSETS_PREFIX}${fingerprinted}`);
  }
  return { files, urls };
}

/** The URL of a bundled browser script (built on the first call). */
export async function scriptUrl(name: string): Promise<string> {
  const url = (await bundledScripts()).urls.get(name);
  if (!url) throw new Error(`no script ${name} in src/web/client`);
  return url;
}

/** A script name: the entry's base name, plain or fingerprinted. */
function isScriptName(name: string): boolean {
  return Object.keys(SCRIPT_ENTRIES).some((entry) =>
    new RegExp(`^${path.basename(entry, '.js')}(\\.[0-9a-f]{16})?\\.js$`).test(name),
  );
}

/** `GET /assets/<name>`: every path below /assets/ is the web scope's, so a miss is an HTML 404. */
export function assetRoutes(app: App): void {
  app.get(`${ASSETS_PREFIX}*`, async (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const asset =
      catalog().files.get(name) ??
      (isScriptName(name) ? (await bundledScripts()).files.get(name) : undefined);
    if (!asset) throw new ApiError('NOT_FOUND', `no asset ${name}`);
    reply.header('etag', asset.etag).header('cache-control', asset.cacheControl);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.contentType).send(asset.body);
  });
}
