// The validators for what the agent receives from the coordinator (shared/protocol/validate.ts):
// a batch acknowledgement must lie within the batch sent, and a resume point must be about the
// run asked for and claim no more lines than the agent has written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateBatchAck, validateResumePoint } from '../../shared/protocol/validate.ts';

test('a batch ack is taken only with next within the lines sent', () => {
  assert.deepEqual(validateBatchAck({ ok: true, next: 15 }, 10, 5), { ok: true, next: 15 });
  assert.deepEqual(validateBatchAck({ ok: true, next: 10 }, 10, 5), { ok: true, next: 10 });
  assert.throws(() => validateBatchAck({ ok: true, next: 16 }, 10, 5), { code: 'PROTOCOL', message: 'batch ack.next is 16, outside the batch sent (lines 10 to 15)' });
  assert.throws(() => validateBatchAck({ ok: true, next: 9 }, 10, 5), { code: 'PROTOCOL', message: 'batch ack.next is 9, outside the batch sent (lines 10 to 15)' });
  assert.throws(() => validateBatchAck({ ok: true, next: '12' }, 10, 5), { code: 'PROTOCOL', message: 'batch ack.next must be an integer >= 0' });
  assert.throws(() => validateBatchAck({ ok: 'yes' }, 10, 5), { code: 'PROTOCOL', message: 'batch ack.ok must be true or false' });
});

test('a batch refusal keeps its code (an unknown one reads as PROTOCOL) and where the coordinator\'s copy ends', () => {
  assert.deepEqual(validateBatchAck({ ok: false, code: 'STORAGE_FAILED', message: 'disk full', next: 3 }, 10, 5), { ok: false, code: 'STORAGE_FAILED', message: 'disk full', next: 3 });
  assert.deepEqual(validateBatchAck({ ok: false, code: 'NEWER_CODE', message: 'm', next: null }, 10, 5), { ok: false, code: 'PROTOCOL', message: 'm', next: null });
  assert.throws(() => validateBatchAck({ ok: false, code: 'PROTOCOL', message: 'm', next: -1 }, 10, 5), { code: 'PROTOCOL', message: 'batch ack.next must be an integer >= 0' });
});

test('a resume point is taken only for the run asked about, for its policies, with no more lines than the agent wrote', () => {
  const held = { whole: 7, pages: 3 };
  assert.deepEqual(validateResumePoint({ runId: 'run-1', next: { whole: 7, pages: 0 }, wanted: true, state: 'running' }, 'run-1', held), { runId: 'run-1', next: { whole: 7, pages: 0 }, wanted: true, state: 'running' });
  assert.deepEqual(validateResumePoint({ runId: 'run-1', next: {}, wanted: false, message: 'cancelled' }, 'run-1', held), { runId: 'run-1', next: {}, wanted: false, message: 'cancelled' });
  assert.throws(() => validateResumePoint({ runId: 'run-2', next: {}, wanted: true }, 'run-1', held), { code: 'PROTOCOL', message: 'resume point.runId is run-2, not the run asked about (run-1)' });
  assert.throws(() => validateResumePoint({ runId: 'run-1', next: { whole: 8 }, wanted: true }, 'run-1', held), { code: 'PROTOCOL', message: 'resume point.next.whole is 8, more lines than this agent has written (7)' });
  assert.throws(() => validateResumePoint({ runId: 'run-1', next: { tracked: 0 }, wanted: true }, 'run-1', held), { code: 'PROTOCOL', message: 'resume point.next.tracked names a policy this run does not have' });
  assert.throws(() => validateResumePoint({ runId: 'run-1', next: { whole: 1.5 }, wanted: true }, 'run-1', held), { code: 'PROTOCOL', message: 'resume point.next.whole must be a count' });
  assert.throws(() => validateResumePoint({ runId: 'run-1', next: {}, wanted: 'yes' }, 'run-1', held), { code: 'PROTOCOL', message: 'resume point.wanted must be true or false' });
  assert.throws(() => validateResumePoint({ runId: 'run-1', next: {}, wanted: true, state: 'sleeping' }, 'run-1', held), { code: 'PROTOCOL', message: 'resume point.state must be a lifecycle state' });
});
