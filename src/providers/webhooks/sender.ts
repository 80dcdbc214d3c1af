import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { isPrivateAddress } from './private-addresses.ts';

/**
 * The outside world of webhooks: the HTTP POST to an organization's endpoint, guarded against
 * server-side request forgery. The host is resolved, every address checked, and the
 * connection made to the checked address (the request's own lookup returns it, so Host and TLS
 * SNI stay the URL's host name): a DNS answer that changes between the check and the connect
 * cannot lead the request to a private address. Redirects are not followed; at most
 * MAX_RESPONSE_BYTES of the answer are read; the whole call ends within the timeout.
 */
export interface WebhookSender {
  /** Why `url` cannot be an endpoint (a sentence), or undefined when it can. */
  checkUrl(url: string): Promise<string | undefined>;
  post(request: WebhookRequest): Promise<WebhookResponse>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** `status` is null when no HTTP answer came (refused address, DNS, connection, timeout). */
export type WebhookResponse =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string };

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** The DNS boundary: every address of a host name (tests stub it). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export interface WebhookSenderOptions {
  allowPrivateUrls: boolean;
  resolve?: Resolve;
  timeoutMs?: number;
  /** Certificates (PEM) trusted besides the system's: tests' own CA. Verification is never off. */
  extraCa?: string;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_URL_LENGTH = 2048;

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const resolve = options.resolve ?? systemResolve;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const allowPrivate = options.allowPrivateUrls;
  const ca = options.extraCa === undefined ? undefined : [...rootCertificates, options.extraCa];

  /** The addresses to connect to, all checked, or why there are none. */
  async function addressesOf(hostname: string): Promise<ResolvedAddress[] | string> {
    const literal = isIP(hostname);
    let addresses: ResolvedAddress[];
    if (literal !== 0) addresses = [{ address: hostname, family: literal }];
    else {
      try {
        addresses = await resolve(hostname);
      } catch (error) {
        return `${hostname} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`;
      }
      if (addresses.length === 0) return `${hostname} does not resolve`;
    }
    if (!allowPrivate) {
      const refused = addresses.find((a) => isPrivateAddress(a.address));
      if (refused) return `${hostname} resolves to a private address (${refused.address})`;
    }
    return addresses;
  }

  return {
    async checkUrl(raw) {
      const url = parseUrl(raw);
      if (typeof url === 'string') return url;
      if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
        return allowPrivate ? 'the url must use https or http' : 'the url must use https';
      // Any address will do: a name that does not resolve yet may by the first delivery.
      if (allowPrivate) return undefined;
      const addresses = await addressesOf(hostnameOf(url));
      return typeof addresses === 'string' ? addresses : undefined;
    },

    async post(request) {
      const url = parseUrl(request.url);
      if (typeof url === 'string') return { ok: false, status: null, error: url };
      if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
        return { ok: false, status: null, error: 'the url must use https' };
      const hostname = hostnameOf(url);
      const addresses = await addressesOf(hostname);
      if (typeof addresses === 'string') return { ok: false, status: null, error: addresses };
      const target = addresses[0]!;
      // The connection goes to the address checked above, whatever DNS says now.
      const pinned: LookupFunction = (_host, lookupOptions, callback) => {
        if (lookupOptions.all) callback(null, [target]);
        else callback(null, target.address, target.family);
      };
      return send(url, hostname, pinned, request, timeoutMs, ca);
    },
  };
}

function parseUrl(raw: string): URL | string {
  if (raw.length > MAX_URL_LENGTH) return `the url must have at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the url is not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the url must use https';
  if (url.username !== '' || url.password !== '') return 'the url must not carry credentials';
  if (url.hostname === '') return 'the url has no host';
  return url;
}

/** The URL's host without the brackets of an IPv6 literal. */
function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function send(
  url: URL,
  hostname: string,
  lookup: LookupFunction,
  request: WebhookRequest,
  timeoutMs: number,
  ca: string[] | undefined,
): Promise<WebhookResponse> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (response: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(response);
    };
    const body = Buffer.from(request.body, 'utf8');
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(
      {
        protocol: url.protocol,
        hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'token-issuance-service-webhooks',
        },
        lookup,
        // TLS checks the certificate against the URL's host name, sent as SNI.
        ...(ca && { ca }),
        // A fresh connection per delivery: a pooled socket could be one made to another address.
        agent: false,
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        let read = 0;
        // Only how much arrives matters (the outcome is the status); reading stops at the cap.
        incoming.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) {
            incoming.destroy();
            conclude();
          }
        });
        const conclude = () => {
          outgoing.destroy();
          if (status >= 200 && status < 300) finish({ ok: true, status });
          else if (status >= 300 && status < 400)
            finish({ ok: false, status, error: `answered ${status}: redirects are not followed` });
          else finish({ ok: false, status, error: `answered ${status}` });
        };
        incoming.on('end', conclude);
        incoming.on('error', conclude);
        incoming.on('close', conclude);
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        status: null,
        error: error.code ? `${error.code}: ${error.message}` : error.message,
      });
    });
    outgoing.end(body);
  });
}
