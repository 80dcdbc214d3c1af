import { httpBench } from './http.bench.ts';
import { itemsBench } from './items.bench.ts';
import { relayerBench } from './relayer.bench.ts';
import { salesBench } from './sales.bench.ts';

/** `npm run bench [-- name…]`: each benchmark prints its figures as ratios against a baseline. */
const BENCHES: Record<string, () => Promise<void>> = {
  http: httpBench,
  relayer: relayerBench,
  items: itemsBench,
  sales: salesBench,
};

const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(BENCHES);
for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    process.stderr.write(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`== ${name}\n`);
  await bench();
}
process.exit(0);
