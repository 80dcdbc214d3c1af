import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * Redeems a mint voucher as its buyer: `npx tsx scripts/redeem-voucher.ts <rpc-url> <buyer-private-key>`
 * with a purchase intent's `data` (the signed voucher: contract, minter, network_id, signature,
 * voucher) as JSON on stdin. Calls the SignatureERC721 contract's `mintWithVoucher`, paying the
 * voucher's price, waits for the receipt and prints the transaction hash and its status.
 * For a dev chain's test accounts only: the key is given on the command line.
 */
interface VoucherData {
  contract: string;
  minter: string;
  network_id: number;
  signature: string;
  voucher: Record<string, string>;
}

const [rpcUrl, privateKey] = process.argv.slice(2);
if (!rpcUrl || !privateKey?.startsWith('0x')) {
  console.error('usage: npx tsx scripts/redeem-voucher.ts <rpc-url> <buyer-private-key>  < intent-data.json');
  process.exit(2);
}
const data = JSON.parse(readFileSync(0, 'utf8')) as VoucherData;
const { voucher } = data;
const field = (name: string): string => {
  const value = voucher[name];
  if (value === undefined || value === null) throw new Error(`the voucher has no ${name}`);
  return value;
};

const artifact = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../contracts/artifacts/SignatureERC721.json'), 'utf8'),
) as { abi: Abi };
const account = privateKeyToAccount(privateKey as Hex);
if (getAddress(data.minter) !== account.address) {
  console.error(`the voucher is for ${data.minter}, the key is ${account.address}'s`);
  process.exit(1);
}
const chain = defineChain({
  id: data.network_id,
  name: `network ${data.network_id}`,
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } },
});
const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });

const price = BigInt(field('price'));
const hash = await wallet.writeContract({
  address: getAddress(data.contract),
  abi: artifact.abi,
  functionName: 'mintWithVoucher',
  args: [
    {
      minter: getAddress(data.minter),
      tokenId: BigInt(field('token_id')),
      quantity: BigInt(field('quantity')),
      price,
      currency: getAddress(field('currency')),
      netRecipient: getAddress(field('net_recipient')),
      feeRecipient: getAddress(field('initial_recipient')),
      feeAmount: BigInt(field('initial_recipient_amount')),
      nonce: BigInt(field('nonce')),
      expiry: BigInt(field('expiry')),
    },
    data.signature as Hex,
  ],
  // The native coin is paid with the call; an ERC-20 price is taken from the minter's approval.
  value: /^0x0{40}$/i.test(field('currency')) ? price : 0n,
});
const receipt = await publicClient.waitForTransactionReceipt({ hash });
console.log(
  JSON.stringify({
    transaction_hash: hash,
    status: receipt.status,
    block_number: Number(receipt.blockNumber),
  }),
);
if (receipt.status !== 'success') process.exit(1);
