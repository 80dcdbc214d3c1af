import assert from 'node:assert/strict';
import { createDecipheriv, scryptSync } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Address, getAddress, keccak256, parseAbi } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { freePort } from '../../src/lib/net.ts';
import { type FlowTest, setupFlowTest } from '../chain/flow.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { insertItem } from '../support/token-requests.ts';

const ERC721 = parseAbi(['function ownerOf(uint256 tokenId) view returns (address)']);
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts');
// An inline picture: the page shows artwork from its own origin or inline only.
const IMAGE = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><rect width="96" height="96" fill="#d4a017"/></svg>',
)}`;

interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  created_at: string;
}

/**
 * An email claim walked in real Chromium on a phone-sized screen, against the service on a real
 * port with a dev chain: the claim is made through the admin API, its link read from the local
 * mailbox, the PIN asked for, read from the mail and typed (once wrong), a wallet created in the
 * browser (phrase shown, keystore downloaded and decrypted here) or an address pasted, then the
 * token followed until minted, and its owner read on-chain. The page talks to no other origin.
 */
describe('the claim page in a browser', { skip: browserUnavailable() }, () => {
  let t: FlowTest;
  let base: string;
  let browser: Browser;
  let contract: Address;
  let collectionId: string;
  let nextTokenId = 1n;
  const foreign: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await setupFlowTest({ PUBLIC_BASE_URL: base });
    await t.env.app.listen({ port, host: '127.0.0.1' });
    const deployed = await t.deployCollection('ERC721', { strategy: 'MANUAL' });
    contract = deployed.address;
    collectionId = deployed.collection.id;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const api = async (method: 'GET' | 'POST', url: string, body?: unknown, token = t.admin.token) => {
    const response = await t.env.call(method, url, { token, ...(body === undefined ? {} : { body }) });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  };

  /** A locked, unminted item with the next token id, claimed for `email`; answers the claim. */
  async function createClaim(email: string, name: string) {
    const tokenId = nextTokenId++;
    const item = await insertItem(t.env.database.db, {
      collectionId,
      organizationId: t.organizationId,
      tokenId,
    });
    await t.env.database.db
      .updateTable('items')
      .set({ attributes: JSON.stringify({ name, image: IMAGE }) })
      .where('id', '=', item.id)
      .execute();
    const claim = await api('POST', '/v1/email-claims', { email, item_id: item.id, quantity: 1 });
    return { claim, tokenId };
  }

  /** The newest mail to `to` whose text matches `pattern`, waited for: the pattern's first group. */
  async function mailed(to: string, pattern: RegExp, after = 0): Promise<string> {
    return t.until(async () => {
      const page = await api(
        'GET',
        `/v1/mailbox?to=${encodeURIComponent(to)}&limit=100`,
        undefined,
        t.env.platformAdmin.token,
      );
      const mails = (page.results as Mail[])
        .filter((m) => Date.parse(m.created_at) >= after)
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
      for (const mail of mails) {
        const match = pattern.exec(mail.text);
        if (match) return match[1];
      }
      return undefined;
    }, `a mail to ${to} matching ${pattern}`);
  }

  const claimLink = (email: string) =>
    mailed(email, new RegExp(`(${base.replace(/[.]/g, '\\.')}/claim\\?token=[A-Za-z0-9_-]+)`));
  const pinOf = (email: string, after: number) => mailed(email, /\b(\d{6})\b/, after);

  async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:')) return;
      if (new URL(url).origin !== base) foreign.push(url);
    });
    page.on('pageerror', (error) => foreign.push(`page error: ${error.message}`));
    return { context, page };
  }

  /** A screenshot of the state, which must fit the phone's width (no sideways scrolling). */
  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(ARTIFACTS, `claim-${name}.png`), fullPage: true });
    const width = await page.evaluate('document.documentElement.scrollWidth');
    assert.ok(Number(width) <= 360, `${name}: the page is ${width}px wide on a 360px screen`);
  }
  const heading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true }).waitFor();
  const focused = (page: Page) => page.locator('*:focus').getAttribute('id');
  const ownerOf = (tokenId: bigint) =>
    t.chain.publicClient.readContract({
      address: contract,
      abi: ERC721,
      functionName: 'ownerOf',
      args: [tokenId],
    });

  /** Opens the mailed link and asks for the PIN with the keyboard only; answers the PIN mailed. */
  async function requestPin(page: Page, email: string, link: string): Promise<string> {
    await page.goto(link);
    await heading(page, 'Confirm that this is your email');
    assert.match(
      await page.locator('[data-step="request-pin"]').innerText(),
      /\*/,
      'the email hint is masked',
    );
    await shot(page, 'request-pin');
    const asked = Date.now() - 1000;
    // Keyboard only: the step's heading has the focus, the button is the next stop.
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'send-pin');
    await page.keyboard.press('Enter');
    await heading(page, 'Enter your code');
    assert.match(await page.locator('#resend-wait').innerText(), /You can ask for a new code in \d+ s\./);
    assert.equal(await page.locator('#resend-pin').isDisabled(), true);
    await shot(page, 'pin-sent');
    return pinOf(email, asked);
  }

  /** The PIN typed with the keyboard alone: Tab from the heading to the field, digits, Enter. */
  async function typePin(page: Page, pin: string): Promise<void> {
    if ((await focused(page)) !== 'pin') {
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'pin');
    }
    const field = page.getByLabel('6-digit code');
    assert.equal(await field.getAttribute('inputmode'), 'numeric');
    assert.equal(await field.getAttribute('autocomplete'), 'one-time-code');
    await page.keyboard.type(pin);
    await page.keyboard.press('Enter');
  }

  /** Follows the page to the end of the delivery; answers what it shows. */
  async function minted(page: Page): Promise<string> {
    await heading(page, 'The token is yours');
    await shot(page, 'done');
    return page.locator('#done-details').innerText();
  }

  it('claims into a wallet created in the browser: phrase shown once, keystore decrypts to its address, a wrong PIN costs a try', async () => {
    const email = 'wallet.claimant@example.test';
    const { tokenId } = await createClaim(email, 'Golden Ticket');
    const link = await claimLink(email);
    const { context, page } = await openPage();
    const pin = await requestPin(page, email, link);
    const wrong = pin === '000000' ? '111111' : '000000';

    await typePin(page, wrong);
    await heading(page, 'Where should your token go?');
    await shot(page, 'destination');
    await page.getByLabel('Create a new wallet in this browser').check();
    await page.getByRole('button', { name: 'Create my wallet' }).click();
    await heading(page, 'Save your recovery phrase');
    const words = await page.locator('#phrase li').allInnerTexts();
    assert.equal(words.length, 12);
    for (const word of words) assert.match(word, /^[a-z]+$/);
    const address = getAddress(String(await page.locator('#wallet-address').innerText()).trim());

    // The encrypted keystore, decrypted here with node:crypto (scrypt, AES-128-CTR) and viem.
    await page.getByLabel('Password for the file (at least 8 characters)').fill('correct horse 42');
    await page.getByLabel('Repeat the password').fill('correct horse 42');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the encrypted keystore' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^UTC--.*--[0-9a-f]{40}\.json$/);
    const keystore = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(keystore.version, 3);
    assert.equal(keystore.crypto.kdf, 'scrypt');
    assert.equal(keystore.crypto.cipher, 'aes-128-ctr');
    const { n, r, p, dklen, salt } = keystore.crypto.kdfparams;
    const derived = scryptSync('correct horse 42', Buffer.from(salt, 'hex'), dklen, {
      N: n,
      r,
      p,
      maxmem: 256 * n * r,
    });
    const ciphertext = Buffer.from(keystore.crypto.ciphertext, 'hex');
    const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
    assert.equal(mac, keystore.crypto.mac);
    const decipher = createDecipheriv(
      'aes-128-ctr',
      derived.subarray(0, 16),
      Buffer.from(keystore.crypto.cipherparams.iv, 'hex'),
    );
    const key =
      `0x${Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('hex')}` as const;
    assert.equal(privateKeyToAddress(key), address);
    assert.equal(keystore.address, address.slice(2).toLowerCase());
    await shot(page, 'wallet');

    // Claiming needs the confirmation; the phrase is gone from the page once given.
    await page.getByRole('button', { name: 'Claim to this wallet' }).click();
    await page
      .locator('#saved-error')
      .getByText('Error: confirm that you saved the recovery phrase first.')
      .waitFor();
    await page.getByLabel('I saved my recovery phrase').check();
    await page.getByRole('button', { name: 'Claim to this wallet' }).click();

    // The wrong PIN: the page says how many tries are left, as the claim does.
    await page.locator('#pin-error').getByText('Error: wrong code. 4 tries left.', { exact: true }).waitFor();
    assert.equal(await page.locator('#phrase li').count(), 0);
    assert.equal(await focused(page), 'pin');
    assert.equal(await page.getByLabel('6-digit code').getAttribute('aria-invalid'), 'true');
    const token = new URL(link).searchParams.get('token')!;
    const read = await t.env.call('GET', `/v1/public/email-claims/${token}`);
    assert.equal(read.json().pin.tries_left, 4);
    await shot(page, 'wrong-pin');

    await typePin(page, pin);
    await heading(page, 'Minting your token…');
    await shot(page, 'minting');
    const shown = await minted(page);
    assert.match(shown, new RegExp(`Delivered to\\s+${address}`));
    assert.match(shown, new RegExp(`Token id\\s+${tokenId}`));
    assert.match(shown, /Transaction hash\s+0x[0-9a-f]{64}/);
    assert.equal(await ownerOf(tokenId), address);

    // The link again: already claimed, with the transaction.
    await page.goto(link);
    await heading(page, 'This token has already been claimed');
    assert.match(await page.locator('#claimed-details').innerText(), /Transaction hash\s+0x[0-9a-f]{64}/);
    await shot(page, 'already-claimed');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('claims to a pasted address with the keyboard alone, refusing one with a broken EIP-55 checksum', async () => {
    const email = 'address.claimant@example.test';
    const { tokenId } = await createClaim(email, 'Silver Ticket');
    const link = await claimLink(email);
    const { context, page } = await openPage();
    const pin = await requestPin(page, email, link);
    await typePin(page, pin);
    await heading(page, 'Where should your token go?');

    const owner = getAddress(t.chain.wallet(3).account.address);
    const broken = owner.replace(/[a-f]/, (c) => c.toUpperCase());
    // Keyboard only: heading → the first choice (checked) → the address field; Enter submits.
    const field = page.getByLabel('Your wallet address');
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('*:focus').getAttribute('value'), 'address');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'address');
    await page.keyboard.type(broken === owner ? owner.toLowerCase().replace('0x', '0X') : broken);
    await page.keyboard.press('Enter');
    await page
      .locator('#address-error')
      .getByText(/^Error: /)
      .waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(await focused(page), 'address');
    await shot(page, 'address-invalid');

    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(owner.toLowerCase());
    await page.keyboard.press('Enter');
    const shown = await minted(page);
    assert.match(shown, new RegExp(`Delivered to\\s+${owner}`));
    assert.equal(await ownerOf(tokenId), owner);
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('explains a BUYER claim and shows the voucher the redeem answers', async () => {
    // The API's answers are stood in for in the browser, so the page is tested without a chain
    // (the BUYER flow on chain: src/modules/sales/email-claims/routes/email-claim-voucher.test.ts).
    const { context, page } = await openPage();
    const claim = {
      status: 'ACTIVE',
      expiration: new Date(Date.now() + 86_400_000).toISOString(),
      tx_payer: 'BUYER',
      item: { name: 'Voucher Ticket', image: null, collection_name: 'Drop', token_id: '9' },
      email_hint: 'v***@example.test',
      pin: null,
      delivery: null,
      voucher: null,
    };
    const voucher = {
      voucher_id: 'v-1',
      signature: '0xabc',
      to: '0x0000000000000000000000000000000000000001',
    };
    const sent = new Date().toISOString();
    await page.route('**/v1/public/email-claims/**', (route) => {
      const url = route.request().url();
      const json = url.endsWith('/verify')
        ? { sent_at: sent, expires_at: sent, tries_left: 5 }
        : url.endsWith('/redeem')
          ? { status: 'CLAIMED', transaction_id: null, voucher }
          : claim;
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(json) });
    });
    await page.goto(`${base}/claim?token=buyer-claim-token-0000000000000000`);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await heading(page, 'Enter your code');
    await typePin(page, '123456');
    await heading(page, 'Where should your token go?');
    await page
      .locator('#buyer-note')
      .getByText(/needs funds/)
      .waitFor();
    await shot(page, 'buyer-destination');
    await page.getByLabel('Your wallet address').fill(t.chain.wallet(5).account.address);
    await page.getByRole('button', { name: 'Claim to this address' }).click();
    await heading(page, 'Your mint voucher');
    assert.deepEqual(JSON.parse(await page.locator('#voucher-json').innerText()), voucher);
    await shot(page, 'voucher');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('says when a link does not work, its PIN was burned by wrong tries, or the claim was withdrawn or expired', async () => {
    const { context, page } = await openPage();
    await page.goto(`${base}/claim?token=not-a-real-claim-token-at-all-0000`);
    await heading(page, 'This link does not work');
    await shot(page, 'invalid');

    // Five wrong codes burn the PIN: the page asks for a new one.
    const burnedEmail = 'burned.claimant@example.test';
    await createClaim(burnedEmail, 'Bronze Ticket');
    const pin = await requestPin(page, burnedEmail, await claimLink(burnedEmail));
    const wrong = pin === '000000' ? '111111' : '000000';
    await typePin(page, wrong);
    await heading(page, 'Where should your token go?');
    await page.getByLabel('Your wallet address').fill(t.chain.wallet(4).account.address);
    await page.getByRole('button', { name: 'Claim to this address' }).click();
    for (const left of [4, 3, 2, 1]) {
      await page
        .locator('#pin-error')
        .getByText(`Error: wrong code. ${left} ${left === 1 ? 'try' : 'tries'} left.`)
        .waitFor();
      if (left > 1) await typePin(page, wrong);
    }
    await typePin(page, wrong);
    await heading(page, 'Confirm that this is your email');
    await page
      .locator('#pin-burned')
      .getByText(/entered wrong too many times/)
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send me a code' }).isDisabled(), true);
    assert.match(await page.locator('#send-wait').innerText(), /You can ask for a new code in \d+ s\./);
    await shot(page, 'pin-burned');

    const revokedEmail = 'revoked.claimant@example.test';
    const { claim } = await createClaim(revokedEmail, 'Paper Ticket');
    const revokedLink = await claimLink(revokedEmail);
    await api('POST', `/v1/email-claims/${claim.id}/revoke`, {});
    await page.goto(revokedLink);
    await heading(page, 'This claim was withdrawn');
    await shot(page, 'revoked');

    const expiredEmail = 'expired.claimant@example.test';
    const expired = await createClaim(expiredEmail, 'Old Ticket');
    const expiredLink = await claimLink(expiredEmail);
    await t.env.database.db
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', expired.claim.id)
      .execute();
    await page.goto(expiredLink);
    await heading(page, 'This claim has expired');
    await shot(page, 'expired');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });
});
