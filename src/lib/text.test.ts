import assert from 'node:assert/strict';
import { it } from 'node:test';
import { printable } from './text.ts';

it('printable turns runs of control characters into one space and trims', () => {
  assert.equal(printable('\u0000TKN\u0000\u0000'), 'TKN');
  assert.equal(printable('a\u0000\u0007\nb\tc\u007fd'), 'a b c d');
  assert.equal(printable('plain text, ünïcode ✓'), 'plain text, ünïcode ✓');
});
