import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/**
 * A request's URL as logs show it: an email claim's token (the `token` query parameter of
 * `/claim`, or of any link, and the path segment of `/v1/public/email-claims/{claim_token}`) is a
 * bearer secret, so it is replaced.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/([?&]token=)[^&#]*/gi, '$1[redacted]')
    .replace(/^(\/v1\/public\/email-claims\/)[^/?#]+/, '$1[redacted]');
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** JSON logs; credentials and secrets are never written, wherever they appear. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    // Fastify's request serializer with the URL redacted (a logger's own serializers win over
    // Fastify's, fastify/lib/logger-pino.js).
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers.cookie',
        '*.password',
        '*.new_password',
        '*.old_password',
        '*.token',
        '*.access_token',
        '*.mfa_token',
        '*.secret',
        '*.secret_key',
        '*.api_key',
        '*.key',
        // Email integration configs, wherever they sit (a request body's config).
        '*.secret_access_key',
        '*.*.password',
        '*.*.api_key',
        '*.*.secret_access_key',
        // Card-provider platform accounts' secrets, and the Stripe-Signature of provider webhooks.
        '*.account_webhook_endpoint_secret',
        '*.connect_webhook_endpoint_secret',
        '*.client_secret',
        'req.headers["stripe-signature"]',
        // The crypto provider's CDP API key and webhook secret (PUT /v1/crypto-provider bodies).
        '*.api_key_secret',
        '*.webhook_secret',
        'config.secretKey',
        'config.databaseUrl',
        'config.smtpUrl',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
