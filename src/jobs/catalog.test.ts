import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobCatalog } from './catalog.ts';
import { crontabOf } from './runner.ts';

describe('job catalog', () => {
  it('keeps the task names that queued jobs already carry', () => {
    assert.deepEqual(jobCatalog.map((task) => task.name).sort(), [
      'maintenance',
      'send_mail',
      'transaction_settled',
    ]);
  });

  it('schedules maintenance hourly and nothing else', () => {
    assert.equal(crontabOf(jobCatalog), '0 * * * * maintenance');
  });
});
