import { scryptAsync } from '@noble/hashes/scrypt.js';
import { bytesToHex, getAddress, hexToBytes, keccak256 } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';

/**
 * Ethereum keystore v3 (the Web3 Secret Storage format geth, MetaMask and ethers import): the
 * private key encrypted with AES-128-CTR under the first half of a scrypt key derived from the
 * password; the MAC is keccak256(second half ‖ ciphertext). Runs in the browser (WebCrypto for
 * AES and randomness) and in Node, where the tests decrypt what the page downloaded.
 */
export interface KeystoreV3 {
  version: 3;
  id: string;
  address: string;
  crypto: {
    ciphertext: string;
    cipherparams: { iv: string };
    cipher: 'aes-128-ctr';
    kdf: 'scrypt';
    kdfparams: { dklen: 32; salt: string; n: number; r: number; p: number };
    mac: string;
  };
}

/** scrypt cost: ethers' default (2^17, 128 MiB), a few seconds on a phone. */
export const SCRYPT_N = 131_072;

const strip = (hex: string) => hex.replace(/^0x/, '');

async function aes128Ctr(
  mode: 'encrypt' | 'decrypt',
  key: Uint8Array,
  iv: Uint8Array,
  data: Uint8Array,
): Promise<Uint8Array> {
  const subtle = globalThis.crypto.subtle;
  // Copies: WebCrypto takes views of a plain ArrayBuffer only.
  const cryptoKey = await subtle.importKey('raw', new Uint8Array(key), { name: 'AES-CTR' }, false, [mode]);
  const params = { name: 'AES-CTR', counter: new Uint8Array(iv), length: 128 };
  const bytes = new Uint8Array(data);
  const out =
    mode === 'encrypt' ? subtle.encrypt(params, cryptoKey, bytes) : subtle.decrypt(params, cryptoKey, bytes);
  return new Uint8Array(await out);
}

function macOf(derived: Uint8Array, ciphertext: Uint8Array): string {
  const input = new Uint8Array(16 + ciphertext.length);
  input.set(derived.subarray(16, 32), 0);
  input.set(ciphertext, 16);
  return strip(keccak256(input));
}

function uuidV4(random: Uint8Array): string {
  const b = random.slice(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = strip(bytesToHex(b));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Encrypts a 32-byte private key (hex) with the password. */
export async function encryptKeystore(
  privateKey: `0x${string}`,
  password: string,
  options: { n?: number } = {},
): Promise<KeystoreV3> {
  const n = options.n ?? SCRYPT_N;
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const derived = await scryptAsync(new TextEncoder().encode(password), salt, {
    N: n,
    r: 8,
    p: 1,
    dkLen: 32,
  });
  const ciphertext = await aes128Ctr('encrypt', derived.subarray(0, 16), iv, hexToBytes(privateKey));
  return {
    version: 3,
    id: uuidV4(globalThis.crypto.getRandomValues(new Uint8Array(16))),
    address: strip(privateKeyToAddress(privateKey)).toLowerCase(),
    crypto: {
      ciphertext: strip(bytesToHex(ciphertext)),
      cipherparams: { iv: strip(bytesToHex(iv)) },
      cipher: 'aes-128-ctr',
      kdf: 'scrypt',
      kdfparams: { dklen: 32, salt: strip(bytesToHex(salt)), n, r: 8, p: 1 },
      mac: macOf(derived, ciphertext),
    },
  };
}

/** Decrypts a scrypt/AES-128-CTR keystore v3; a wrong password fails the MAC check. */
export async function decryptKeystore(
  keystore: KeystoreV3,
  password: string,
): Promise<{ privateKey: `0x${string}`; address: `0x${string}` }> {
  const { kdfparams, cipherparams, ciphertext, mac, kdf, cipher } = keystore.crypto;
  if (keystore.version !== 3 || kdf !== 'scrypt' || cipher !== 'aes-128-ctr')
    throw new Error('not a scrypt/aes-128-ctr keystore v3');
  const derived = await scryptAsync(new TextEncoder().encode(password), hexToBytes(`0x${kdfparams.salt}`), {
    N: kdfparams.n,
    r: kdfparams.r,
    p: kdfparams.p,
    dkLen: kdfparams.dklen,
  });
  const encrypted = hexToBytes(`0x${ciphertext}`);
  if (macOf(derived, encrypted) !== mac.toLowerCase()) throw new Error('wrong password (MAC mismatch)');
  const plain = await aes128Ctr(
    'decrypt',
    derived.subarray(0, 16),
    hexToBytes(`0x${cipherparams.iv}`),
    encrypted,
  );
  const privateKey = bytesToHex(plain);
  return { privateKey, address: getAddress(privateKeyToAddress(privateKey)) };
}
