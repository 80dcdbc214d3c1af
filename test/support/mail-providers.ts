import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * Local stand-ins of the mail providers at their real boundaries: an SMTP server (smtp-server,
 * STARTTLS or implicit TLS, with a login), Mailgun's MIME endpoint and SES v2's SendEmail over
 * HTTP, reached by the real clients (nodemailer, mailgun.js, the AWS SDK).
 */

/** A self-signed certificate for 127.0.0.1/localhost, made by openssl; also the CA that trusts it. */
export function makeCertificate(): {
  cert: string;
  key: string;
  dir: string;
  certFile: string;
  remove(): void;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'tis-mail-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ],
    { stdio: 'ignore' },
  );
  return {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    dir,
    certFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface SmtpDelivery {
  envelopeFrom: string;
  recipients: string[];
  /** The session was encrypted (STARTTLS or implicit TLS) when the message was sent. */
  secure: boolean;
  user: string | undefined;
  raw: Buffer;
  parsed: ParsedMail;
}

/** A real SMTP server on loopback with TLS; `reply(code)` makes it answer the next DATA with a failure. */
export async function startSmtpServer(options: {
  tls: { cert: string; key: string };
  secure: boolean;
  login?: { username: string; password: string };
}) {
  const received: SmtpDelivery[] = [];
  const failures: { code: number; message: string }[] = [];
  const server = new SMTPServer({
    secure: options.secure,
    key: options.tls.key,
    cert: options.tls.cert,
    logger: false,
    authOptional: options.login === undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      const login = options.login;
      if (login && auth.username === login.username && auth.password === login.password) {
        callback(null, { user: auth.username });
        return;
      }
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const failure = failures.shift();
        if (failure) {
          callback(Object.assign(new Error(failure.message), { responseCode: failure.code }));
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              recipients: session.envelope.rcptTo.map((r) => r.address),
              secure: session.secure,
              user: session.user as string | undefined,
              raw,
              parsed,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    receivedBy: (recipient: string) => received.filter((m) => m.recipients.includes(recipient)),
    failNext(code: number, message: string) {
      failures.push({ code, message });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface MailgunRequest {
  domain: string;
  /** `api:<key>` from the Basic authorization. */
  credentials: string;
  contentType: string;
  to: string[];
  /** The `message` part: a file, as Mailgun's MIME endpoint documents it. */
  messageFilename: string | undefined;
  raw: Buffer;
  parsed: ParsedMail;
}

/**
 * Mailgun's `POST /v3/{domain}/messages.mime` (multipart/form-data: `to`, and `message` the MIME
 * file), with Basic auth `api:<key>`. Answers 401 to a wrong key, and whatever `answerNext`
 * queues (a 400 refusal, a 503 outage) before the usual 200.
 */
export async function startMailgunStandIn(validKeys: () => string[]) {
  const requests: MailgunRequest[] = [];
  const answers: { status: number; body: unknown }[] = [];
  const server = createServer(async (request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const match = /^\/v3\/([^/]+)\/messages\.mime$/.exec(request.url ?? '');
    const body = await bodyOf(request);
    if (request.method !== 'POST' || !match) return reply(404, { message: 'not found' });
    const authorization = request.headers.authorization ?? '';
    const credentials = authorization.startsWith('Basic ')
      ? Buffer.from(authorization.slice(6), 'base64').toString('utf8')
      : '';
    if (!validKeys().some((key) => credentials === `api:${key}`)) {
      response.writeHead(401, { 'content-type': 'text/plain' });
      return response.end('Forbidden');
    }
    const contentType = request.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data')) return reply(400, { message: 'not multipart' });
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    const message = form.get('message');
    if (!(message instanceof Blob)) return reply(400, { message: "'message' parameter is missing" });
    const raw = Buffer.from(await message.arrayBuffer());
    const queued = answers.shift();
    if (queued) return reply(queued.status, queued.body);
    requests.push({
      domain: decodeURIComponent(match[1] ?? ''),
      credentials,
      contentType,
      to: form.getAll('to').map(String),
      messageFilename: message instanceof File ? message.name : undefined,
      raw,
      parsed: await simpleParser(raw),
    });
    return reply(200, { id: `<${Date.now()}@mailgun.test>`, message: 'Queued. Thank you.' });
  });
  const url = await listen(server);
  return {
    url,
    requests,
    answerNext(status: number, body: unknown) {
      answers.push({ status, body });
    },
    close: () => close(server),
  };
}

export interface SesRequest {
  accessKeyId: string;
  region: string;
  service: string;
  /** The signature recomputed from the request and the secret key matched the one sent. */
  signatureValid: boolean;
  body: { FromEmailAddress?: string; Destination?: { ToAddresses?: string[] }; Content?: unknown };
  raw: Buffer;
  parsed: ParsedMail;
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Recomputes an AWS Signature Version 4 of a request, the secret taken from `secrets`. */
function verifySigV4(
  request: IncomingMessage,
  body: Buffer,
  secrets: Record<string, string>,
): { accessKeyId: string; region: string; service: string; valid: boolean } | undefined {
  const authorization = request.headers.authorization ?? '';
  const parsed =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!parsed) return undefined;
  const [, accessKeyId = '', date = '', region = '', service = '', signedHeaders = '', signature = ''] =
    parsed;
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const names = signedHeaders.split(';');
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&');
  const canonicalRequest = [
    request.method,
    url.pathname,
    query,
    canonicalHeaders,
    signedHeaders,
    sha256Hex(body),
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const secret = secrets[accessKeyId];
  if (secret === undefined) return { accessKeyId, region, service, valid: false };
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const expected = hmac(signingKey, stringToSign).toString('hex');
  return { accessKeyId, region, service, valid: expected === signature && amzDate.startsWith(date) };
}

/**
 * SES v2 `POST /v2/email/outbound-emails` (REST-JSON), checking the SigV4 signature against the
 * secret of the access key it names; Content.Raw.Data arrives base64. A bad signature answers 403
 * as SES does; `answerNext` queues refusals (400 MessageRejected) or outages (500).
 */
export async function startSesStandIn(secrets: Record<string, string>) {
  const requests: SesRequest[] = [];
  const answers: { status: number; type: string; message: string }[] = [];
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const fail = (status: number, type: string, message: string) => {
      response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
      response.end(JSON.stringify({ message }));
    };
    if (request.method !== 'POST' || request.url !== '/v2/email/outbound-emails')
      return fail(404, 'NotFoundException', 'no such operation');
    const signature = verifySigV4(request, body, secrets);
    if (!signature?.valid)
      return fail(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match');
    const queued = answers.shift();
    if (queued) return fail(queued.status, queued.type, queued.message);
    const json = JSON.parse(body.toString('utf8')) as SesRequest['body'];
    const data = (json.Content as { Raw?: { Data?: string } } | undefined)?.Raw?.Data ?? '';
    const raw = Buffer.from(data, 'base64');
    requests.push({
      accessKeyId: signature.accessKeyId,
      region: signature.region,
      service: signature.service,
      signatureValid: signature.valid,
      body: json,
      raw,
      parsed: await simpleParser(raw),
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ MessageId: `ses-${Date.now()}` }));
  });
  const url = await listen(server);
  return {
    url,
    requests,
    answerNext(status: number, type: string, message: string) {
      answers.push({ status, type, message });
    },
    close: () => close(server),
  };
}
