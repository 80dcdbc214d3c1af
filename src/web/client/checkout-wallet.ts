import { encodeFunctionData, getAddress, type Hex, parseAbi, toHex } from 'viem';
import { type VoucherData, writeStored } from './checkout-intent.ts';
import { show, status } from './checkout-steps.ts';
import { walletText } from './checkout-text.ts';
import { $, announce } from './dom.ts';

/**
 * The buyer's browser wallet: connecting it on the sale's network (for the form) and sending the
 * voucher's mintWithVoucher transaction (for the status page).
 */

/** An EIP-1193 provider, as browser wallets inject it. */
interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

declare global {
  interface Window {
    ethereum?: Eip1193;
  }
}

const ZERO_ADDRESS = /^0x0{40}$/i;
const MINT_ABI = parseAbi([
  'struct MintVoucher { address minter; uint256 tokenId; uint256 quantity; uint256 price; address currency; address netRecipient; address feeRecipient; uint256 feeAmount; uint256 nonce; uint256 expiry; }',
  'function mintWithVoucher(MintVoucher voucher, bytes signature) payable',
]);

function wallet(): Eip1193 {
  if (!window.ethereum)
    throw new WalletMissing(
      'no browser wallet was found. Install a wallet extension, or choose another way to pay.',
    );
  return window.ethereum;
}
export class WalletMissing extends Error {}

/** The wallet's account, on `networkId` (asking the wallet to switch when it is elsewhere). */
export async function connect(networkId: number): Promise<`0x${string}`> {
  const eth = wallet();
  const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accounts?.[0]) throw new WalletMissing('the wallet gave no account.');
  const current = Number.parseInt(String(await eth.request({ method: 'eth_chainId' })), 16);
  if (current !== networkId) {
    await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: toHex(networkId) }] });
    const now = Number.parseInt(String(await eth.request({ method: 'eth_chainId' })), 16);
    if (now !== networkId)
      throw new WalletMissing(`switch your wallet to network ${networkId}, then try again.`);
  }
  return getAddress(accounts[0]);
}

/** The wallet sends mintWithVoucher with the voucher, paying its price in the native coin. */
export async function sendTransaction(): Promise<void> {
  const intent = status.intent;
  if (!intent || status.sending) return;
  const data = intent.data as VoucherData | null;
  const button = $('send-tx') as HTMLButtonElement;
  const problem = (text: string) => {
    announce(`Error: ${text}`);
  };
  if (!data?.voucher) return problem('this purchase has no voucher.');
  const v = data.voucher;
  if (!ZERO_ADDRESS.test(v.currency ?? '')) {
    return problem(
      'this voucher is paid in an ERC-20 token, which needs an approval first: this page does not do that.',
    );
  }
  status.sending = true;
  button.disabled = true;
  try {
    announce('Confirm the transaction in your wallet…');
    const from = await connect(data.network_id);
    if (from !== getAddress(data.minter)) {
      return problem(`the voucher is for the account ${getAddress(data.minter)}: switch your wallet to it.`);
    }
    const calldata = encodeFunctionData({
      abi: MINT_ABI,
      functionName: 'mintWithVoucher',
      args: [
        {
          minter: getAddress(data.minter),
          tokenId: BigInt(v.token_id!),
          quantity: BigInt(v.quantity!),
          price: BigInt(v.price!),
          currency: getAddress(v.currency!),
          netRecipient: getAddress(v.net_recipient!),
          feeRecipient: getAddress(v.initial_recipient!),
          feeAmount: BigInt(v.initial_recipient_amount!),
          nonce: BigInt(v.nonce!),
          expiry: BigInt(v.expiry!),
        },
        data.signature as Hex,
      ],
    });
    const hash = String(
      await wallet().request({
        method: 'eth_sendTransaction',
        params: [{ from, to: getAddress(data.contract), data: calldata, value: toHex(BigInt(v.price!)) }],
      }),
    );
    status.stored = { ...(status.stored ?? { token: '' }), tx_hash: hash };
    writeStored(intent.id, status.stored);
    $('paying-text').textContent =
      `Your transaction ${hash} was sent. Once it is mined the seller sees it and this page updates by itself.`;
    show('paying');
  } catch (error) {
    problem(error instanceof WalletMissing ? error.message : walletText(error));
  } finally {
    status.sending = false;
    button.disabled = false;
  }
}
