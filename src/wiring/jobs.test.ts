import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crontabOf } from '../jobs/runner.ts';
import { jobCatalog } from './jobs.ts';

describe('job catalog', () => {
  it('keeps the task names that queued jobs already carry', () => {
    assert.deepEqual(jobCatalog.map(({ job }) => job.name).sort(), [
      'cancel_payment_session',
      'deliver_purchase_intent',
      'deliver_webhook',
      'expire_email_claims',
      'expire_purchase_intent',
      'expire_purchase_intents',
      'maintenance',
      'reconcile_purchase_payments',
      'retry_provider_events',
      'send_mail',
      'transaction_settled',
      'watch_mint_vouchers',
    ]);
  });

  it('schedules maintenance hourly; payment reconciliation every five minutes; email claim expiry, purchase intent expiry, provider event retries and the mint-voucher watch every minute; nothing else', () => {
    assert.equal(
      crontabOf(jobCatalog),
      [
        '0 * * * * maintenance',
        '* * * * * expire_email_claims',
        '* * * * * expire_purchase_intents',
        '*/5 * * * * reconcile_purchase_payments',
        '* * * * * retry_provider_events',
        '* * * * * watch_mint_vouchers',
      ].join('\n'),
    );
  });

  it('runs webhook deliveries, and only them, on the webhooks runner', () => {
    assert.deepEqual(
      jobCatalog.filter(({ job }) => job.runner === 'webhooks').map(({ job }) => job.name),
      ['deliver_webhook'],
    );
  });
});
