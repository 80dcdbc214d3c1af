/**
 * The structure of src/, checked by `npm run check` (ARCHITECTURE.md, "The rule").
 *
 * TIERS lists every folder (and top-level file) of src/ lowest first. An import points down the
 * list: from a folder to one listed before it, or within its own folder. Two folders on one line
 * are siblings: neither imports the other. A total order leaves no room for a cycle between
 * folders; files inside a folder must not form one either (no-circular). Type-only imports count.
 */
const TIERS = [
  ['lib'],
  ['db'],
  ['chain', 'providers', 'access'],
  ['context.ts'],
  ['jobs'],
  ['http'],
  ['web'],
  // The platform: what everything else runs on.
  ['modules/platform/networks'],
  ['modules/platform/webhooks'],
  ['modules/platform/provider-events'],
  ['modules/platform/maintenance'],
  ['modules/platform/roles'],
  ['modules/platform/wallets'],
  ['modules/platform/organizations'],
  ['modules/platform/transactions'],
  ['modules/platform/marketing-campaigns'],
  ['modules/platform/mail'],
  ['modules/platform/email-integrations'],
  ['modules/platform/email-templates'],
  ['modules/platform/api-keys'],
  ['modules/platform/users'],
  ['modules/platform/auth'],
  // The catalog: contracts, collections and their items.
  ['modules/catalog/contracts'],
  ['modules/catalog/collections'],
  ['modules/catalog/contract-functions'],
  ['modules/catalog/item-types'],
  ['modules/catalog/items'],
  ['modules/catalog/metadata'],
  // Tokens on the move.
  ['modules/tokens/token-flows'],
  ['modules/tokens/mint-vouchers'],
  ['modules/tokens/mint-requests'],
  ['modules/tokens/transfer-requests'],
  // Sales.
  ['modules/sales/listings'],
  ['modules/sales/email-claims'],
  ['modules/sales/purchase-intents'],
  // Payment providers.
  ['modules/payments/card-provider', 'modules/payments/crypto-provider'],
  // What fills the ports and lists the jobs, the routes and their examples.
  ['wiring'],
  // The processes.
  ['app.ts', 'worker.ts', 'bootstrap.ts'],
  ['service.ts'],
  ['banner.ts', 'cli.ts'],
  ['main.ts'],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path pattern for a folder (and everything under it) or a top-level file of src/. */
const pathOf = (name) => (name.endsWith('.ts') ? `^src/${escape(name)}$` : `^src/${escape(name)}/`);
const TESTS = '\\.test(-setup)?\\.ts$';

const tierRules = TIERS.flatMap((tier, rank) =>
  tier.flatMap((name) => {
    const above = TIERS.slice(rank + 1).flat();
    const siblings = tier.filter((other) => other !== name);
    if (above.length + siblings.length === 0) return [];
    return {
      name: 'tier-order',
      comment: `src/${name} imports only what is listed before it in .dependency-cruiser.cjs (TIERS), or its own folder`,
      severity: 'error',
      from: { path: pathOf(name), pathNot: TESTS },
      to: { path: [...above, ...siblings].map(pathOf) },
    };
  }),
);

const listed = TIERS.flat().map(pathOf);
const LEAVES = ['^src/modules/[^/]+/[^/]+/routes/', '^src/modules/[^/]+/[^/]+/pages/', '^src/web/pages/'];

module.exports = {
  forbidden: [
    ...tierRules,
    {
      name: 'unlisted-folder',
      comment: 'every file of src/ belongs to a tier of TIERS: a new folder is placed in the list',
      severity: 'error',
      from: { path: '^src/', pathNot: [TESTS, ...listed] },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no import cycle between files, type-only imports included',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { circular: true },
    },
    {
      name: 'no-lazy-import',
      comment: "no import() of the project's own code: a lazy import to dodge a cycle is the cycle, hidden",
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: '^(src|test|bench|scripts|migrations)/', dependencyTypes: ['dynamic-import'] },
    },
    {
      name: 'leaves',
      comment: 'routes and pages are leaves: only the route list (src/wiring/) and their own folder import them',
      severity: 'error',
      from: { path: '^src/', pathNot: [TESTS, '^src/wiring/', '/routes/', '/pages/'] },
      to: { path: LEAVES },
    },
    {
      name: 'leaves-apart',
      comment: "a module's routes and pages import no other module's routes or pages",
      severity: 'error',
      from: { path: '^src/(modules/[^/]+/[^/]+|web)/(routes|pages)/', pathNot: TESTS },
      to: { path: LEAVES, pathNot: '^src/$1/(routes|pages)/' },
    },
    {
      name: 'foreign-repository',
      comment: "a module calls another module's service, never its repository",
      severity: 'error',
      from: { path: '^src/modules/[^/]+/([^/]+)/', pathNot: TESTS },
      to: {
        path: '^src/modules/[^/]+/[^/]+/.+\\.repository\\.ts$',
        pathNot: '^src/modules/[^/]+/$1/',
      },
    },
    {
      name: 'no-test-code',
      comment: 'the service never imports test, bench or script code',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules/' },
    // test/ is cruised too, so that an import of it from the service is seen (no-test-code).
    includeOnly: '^(src|test)/',
  },
};
