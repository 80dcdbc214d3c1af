import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** JSON logs; credentials and secrets are never written, wherever they appear. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
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
        'config.secretKey',
        'config.databaseUrl',
        'config.smtpUrl',
      ],
      censor: '[redacted]',
    },
  });
}
