import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

const INVITE_URL =
  'http://localhost:8080/verify?token=Qm9vdHN0cmFwLXZlcmlmeS10b2tlbi0xMjM0NTY3ODkw&email=linus%40northwind.example';

/** The dev mailbox: the invitation mailed to a new user. */
export const mailExamples: Readonly<Record<string, OperationExample>> = {
  listMailbox: {
    response: page([
      {
        id: ids.mail,
        to: 'linus@northwind.example',
        subject: 'You are invited to Northwind Studios',
        html: [
          '<p>Hello,</p>',
          '<p>You have been invited to join <strong>Northwind Studios</strong>.</p>',
          `<p><a href="${INVITE_URL.replace('&', '&amp;')}">Accept the invitation and set your password</a></p>`,
          '<p>This link expires on 2026-11-30T05:56:02.843Z.</p>',
        ].join('\n'),
        text: [
          'Hello,',
          '',
          'You have been invited to join Northwind Studios.',
          `Accept the invitation and set your password: ${INVITE_URL}`,
          '',
          'This link expires on 2026-11-30T05:56:02.843Z.',
        ].join('\n'),
        created_at: '2026-11-23T05:56:02.843Z',
      },
    ]),
  },
};
