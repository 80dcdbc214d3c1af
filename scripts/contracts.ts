import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import solc from 'solc';

/**
 * `npm run contracts`: compiles every Solidity source under contracts/src with solc (npm) and
 * writes one artifact per deployable contract, `{contractName, abi, bytecode, sourceHash}`:
 * contracts/src/X.sol → contracts/artifacts/X.json, contracts/src/test/X.sol →
 * contracts/artifacts/test/X.json; plus contracts/artifacts/abis.ts, every ABI again `as const`
 * so viem types each call. Abstract bases (contracts/src/base) produce no artifact.
 *
 * `npm run contracts -- --check` compiles in memory and exits 1 when a committed artifact differs
 * from what the sources give (or is missing, or has no source any more).
 *
 * Output is deterministic: sources are named by their path relative to the repository root, the
 * compiler and its settings are pinned, and nothing time- or machine-dependent is written.
 */

const SOLC_VERSION = '0.8.37';
// solc 0.8.31+ defaults to Osaka; OpenZeppelin Contracts 5 needs at least Cancun (transient
// storage, mcopy), and Cancun runs on every chain we target.
const EVM_VERSION = 'cancun';
const OPTIMIZER_RUNS = 200;
// EIP-170: the largest runtime code a chain accepts.
const MAX_RUNTIME_BYTES = 24_576;

const root = path.resolve(import.meta.dirname, '..');
const sourceDir = 'contracts/src';
const artifactDir = 'contracts/artifacts';
const require = createRequire(import.meta.url);

interface Artifact {
  contractName: string;
  abi: unknown[];
  bytecode: string;
  sourceHash: string;
}

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
  sourceLocation?: { file: string };
}

interface SolcContractOutput {
  abi: unknown[];
  metadata: string;
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<string, Record<string, SolcContractOutput>>;
}

function listSources(dir: string): string[] {
  return readdirSync(path.join(root, dir))
    .sort()
    .flatMap((name) => {
      const relative = `${dir}/${name}`;
      if (statSync(path.join(root, relative)).isDirectory()) return listSources(relative);
      return name.endsWith('.sol') ? [relative] : [];
    });
}

/** Resolves imports solc could not find among the given sources: OpenZeppelin from node_modules. */
function readImport(unitName: string): { contents: string } | { error: string } {
  try {
    if (unitName.startsWith('@openzeppelin/'))
      return { contents: readFileSync(require.resolve(unitName), 'utf8') };
    if (unitName.startsWith(`${sourceDir}/`))
      return { contents: readFileSync(path.join(root, unitName), 'utf8') };
    return { error: `import not allowed: ${unitName}` };
  } catch (error) {
    return { error: `cannot read ${unitName}: ${(error as Error).message}` };
  }
}

/** Where the artifact of a deployable contract goes, or undefined for sources without artifacts. */
function artifactPath(sourceUnit: string, contractName: string): string | undefined {
  const relative = path.posix.relative(sourceDir, sourceUnit);
  const folder = path.posix.dirname(relative);
  if (path.posix.basename(relative, '.sol') !== contractName) return undefined;
  if (folder === '.') return `${artifactDir}/${contractName}.json`;
  if (folder === 'test') return `${artifactDir}/test/${contractName}.json`;
  return undefined;
}

interface Compiled {
  files: Map<string, string>;
  sizes: string[];
}

function compile(): Compiled {
  const version: string = solc.version();
  if (!version.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`solc ${SOLC_VERSION} expected, found ${version}: run npm ci`);
  }
  const sources = Object.fromEntries(
    listSources(sourceDir).map((unit) => [unit, { content: readFileSync(path.join(root, unit), 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      outputSelection: {
        '*': { '*': ['abi', 'metadata', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;
  const problems = output.errors ?? [];
  // Warnings about OpenZeppelin's own code (e.g. its transient-storage reentrancy guard) are not ours to fix.
  const ownWarnings = problems.filter(
    (p) => p.severity === 'warning' && !p.sourceLocation?.file.startsWith('@openzeppelin/'),
  );
  for (const warning of ownWarnings) process.stderr.write(warning.formattedMessage);
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);

  const files = new Map<string, string>();
  const abis: [string, unknown[]][] = [];
  const sizes: string[] = [];
  for (const [unit, contracts] of Object.entries(output.contracts ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    for (const [contractName, contract] of Object.entries(contracts)) {
      const target = artifactPath(unit, contractName);
      if (!target || contract.evm.bytecode.object === '') continue;
      const runtimeBytes = contract.evm.deployedBytecode.object.length / 2;
      if (runtimeBytes > MAX_RUNTIME_BYTES) {
        throw new Error(
          `${contractName} runtime code is ${runtimeBytes} bytes, over the ${MAX_RUNTIME_BYTES}-byte limit`,
        );
      }
      sizes.push(
        `${contractName}: runtime ${runtimeBytes} bytes, init code ${contract.evm.bytecode.object.length / 2} bytes`,
      );
      const artifact: Artifact = {
        contractName,
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        // The metadata names the compiler, its settings and the keccak256 of every source the
        // contract was built from, so this changes exactly when the build inputs change.
        sourceHash: `0x${createHash('sha256').update(contract.metadata).digest('hex')}`,
      };
      files.set(target, `${JSON.stringify(artifact, null, 2)}\n`);
      abis.push([contractName, contract.abi]);
    }
  }
  files.set(`${artifactDir}/abis.ts`, abiModule(abis));
  return { files, sizes };
}

function abiModule(abis: [string, unknown[]][]): string {
  const header = '// Generated by `npm run contracts` from contracts/src: do not edit.\n';
  const body = abis
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, abi]) => {
      // One ABI entry per line: compact, and a change shows as the entries it touches.
      const entries = abi.map((entry) => `  ${JSON.stringify(entry)},\n`).join('');
      return `export const ${name}Abi = [\n${entries}] as const;\n`;
    })
    .join('\n');
  return `${header}\n${body}`;
}

function existingArtifacts(dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir))
    .sort()
    .flatMap((name) => {
      const relative = `${dir}/${name}`;
      if (statSync(path.join(root, relative)).isDirectory()) return existingArtifacts(relative);
      return name.endsWith('.json') || name.endsWith('.ts') ? [relative] : [];
    });
}

function main(): number {
  const check = process.argv.includes('--check');
  const { files, sizes } = compile();
  const stale = existingArtifacts(artifactDir).filter((file) => !files.has(file));
  const changed = [...files].filter(([file, text]) => {
    const full = path.join(root, file);
    return !existsSync(full) || readFileSync(full, 'utf8') !== text;
  });

  if (check) {
    if (changed.length === 0 && stale.length === 0) {
      process.stdout.write(`contracts: ${files.size} artifacts match their sources\n`);
      return 0;
    }
    for (const [file] of changed)
      process.stderr.write(`contracts: ${file} differs from what the sources compile to\n`);
    for (const file of stale) process.stderr.write(`contracts: ${file} has no source any more\n`);
    process.stderr.write(
      'contracts: artifacts are out of date; run `npm run contracts` and commit the result\n',
    );
    return 1;
  }

  for (const [file, text] of changed) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
    process.stdout.write(`contracts: wrote ${file}\n`);
  }
  for (const size of sizes) process.stdout.write(`contracts: ${size}\n`);
  for (const file of stale) {
    rmSync(path.join(root, file));
    process.stdout.write(`contracts: removed ${file}\n`);
  }
  process.stdout.write(
    `contracts: ${files.size} artifacts, ${changed.length} changed, ${stale.length} removed\n`,
  );
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`contracts: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
