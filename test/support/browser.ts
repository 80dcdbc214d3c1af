import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * Real Chromium for the browser tests: Debian's package (playwright-core downloads nothing).
 * `npm test` and CI install it with scripts/ensure-chromium.sh; CHROMIUM_PATH names another binary.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here, or undefined when they can. Under CI=true a missing
 * browser is an error, never a skip: a suite that silently skips proves nothing.
 */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `${CHROMIUM_PATH} is missing (run scripts/ensure-chromium.sh, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${reason}`);
  return reason;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}
