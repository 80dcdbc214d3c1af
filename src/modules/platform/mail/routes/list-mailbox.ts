import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { listQueryProperties, Page } from '../../../../http/pagination.ts';
import { DateTime, Email, iso, Uuid } from '../../../../http/schemas.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ApiError } from '../../../../lib/errors.ts';
import { listMailbox } from '../mail.service.ts';

const MailboxMessage = Type.Object(
  {
    id: Uuid,
    to: Type.String(),
    subject: Type.String(),
    html: Type.String(),
    text: Type.String(),
    created_at: DateTime,
  },
  { title: 'MailboxMessage' },
);
const ListMailboxQuery = Type.Object(
  { ...listQueryProperties('standard'), to: Type.Optional(Email) },
  { additionalProperties: false },
);

export const listMailboxRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/mailbox',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'listMailbox',
        tags: ['Mail'],
        summary: 'Mail kept by the local mailbox (only when no mail transport is configured)',
        querystring: ListMailboxQuery,
        response: { 200: Page(MailboxMessage, 'MailboxMessagePage') },
      },
    },
    async (request) => {
      if (ctx.config.smtpUrl !== undefined)
        throw new ApiError('NOT_FOUND', 'the local mailbox is off: SMTP_URL is set');
      const { to, ...page } = request.query;
      const result = await listMailbox(ctx.db, page, to);
      return {
        ...result,
        results: result.results.map((m) => ({ ...m, created_at: iso(m.created_at) })),
      };
    },
  );
