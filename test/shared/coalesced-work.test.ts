import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedWork, GroupCommit } from '../../shared/coalesced-work.ts';

test('requests made while the work runs are served by exactly one more run, never two at once', async () => {
  let runs = 0;
  let active = 0;
  let most = 0;
  let release: () => void = () => undefined;
  const work = new CoalescedWork(async () => {
    runs++;
    active++;
    most = Math.max(most, active);
    await new Promise<void>((resolve) => (release = resolve));
    active--;
  });
  const first = work.request();
  const during = Array.from({ length: 1000 }, () => work.request());
  assert.equal(runs, 1);
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(runs, 2, 'one more run for the thousand requests');
  release();
  await Promise.all([first, ...during]);
  await work.settled();
  assert.equal(runs, 2);
  assert.equal(most, 1);
  // Idle again: the next request starts a run of its own.
  const later = work.request();
  release();
  await later;
  assert.equal(runs, 3);
});

test('a false goOn ends the series: the run a request asked for is not made', async () => {
  let runs = 0;
  let up = true;
  let release: () => void = () => undefined;
  const work = new CoalescedWork(
    async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
    },
    () => up,
  );
  const first = work.request();
  void work.request();
  up = false;
  release();
  await first;
  await work.settled();
  assert.equal(runs, 1);
});

test('a request made just after the last run decided to end starts a run of its own, at any microtask depth', async () => {
  // The series ends in one step with its last look at "again": a request one, two or five
  // microtasks after the work's end is served by a new run, never left waiting on the old one.
  for (let depth = 0; depth <= 6; depth++) {
    let runs = 0;
    const late: Promise<void>[] = [];
    const work = new CoalescedWork(async () => {
      runs++;
      await Promise.resolve();
      if (runs > 1) return;
      let hop = (): void => {
        late.push(work.request());
      };
      for (let i = 0; i < depth; i++) {
        const next = hop;
        hop = () => queueMicrotask(next);
      }
      queueMicrotask(hop);
    });
    await work.request();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(late.length, 1, `depth ${depth}: the late request was made`);
    await late[0];
    await work.settled();
    assert.equal(runs, 2, `depth ${depth}: the late request had a run of its own`);
  }
});

test('items submitted while a group commits go together in the next group, each answered with its own result', async () => {
  const groups: number[][] = [];
  let release: () => void = () => undefined;
  const commits = new GroupCommit<number, string>(async (group) => {
    groups.push(group.map((w) => w.item));
    await new Promise<void>((resolve) => (release = resolve));
    for (const w of group) {
      if (w.item === 13) w.reject(new Error('unlucky'));
      else w.resolve(`item ${w.item}`);
    }
  });
  const first = commits.submit(1);
  const rest = [2, 13, 4].map((n) => commits.submit(n));
  assert.equal(commits.busy, true);
  assert.deepEqual(groups, [[1]], 'the first item commits alone, at once');
  release();
  assert.equal(await first, 'item 1');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(groups, [[1], [2, 13, 4]], 'the three that waited go in one group');
  release();
  const answers = await Promise.allSettled(rest);
  assert.deepEqual(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message)), ['item 2', 'unlucky', 'item 4']);
  await commits.settled();
  assert.equal(commits.busy, false);
});

test('a step asked for between groups runs after the group in flight and before the next one', async () => {
  const order: string[] = [];
  let release: () => void = () => undefined;
  const commits = new GroupCommit<string, void>(async (group) => {
    order.push(`commit ${group.map((w) => w.item).join('+')}`);
    await new Promise<void>((resolve) => (release = resolve));
    for (const w of group) w.resolve();
  });
  const a = commits.submit('a');
  const b = commits.submit('b');
  const step = commits.between(async () => {
    order.push('step');
    await Promise.resolve();
  });
  const c = commits.submit('c');
  release();
  await step;
  assert.deepEqual(order, ['commit a', 'step', 'commit b+c'], 'the step waits for the group in flight, and what queued meanwhile goes after it');
  release();
  await Promise.all([a, b, c]);
  // Idle: the step runs at once, and an item submitted during it waits for it.
  let stepDone = false;
  const idleStep = commits.between(async () => {
    await new Promise((resolve) => setImmediate(resolve));
    stepDone = true;
  });
  const d = commits.submit('d');
  assert.equal(stepDone, false);
  await idleStep;
  assert.deepEqual(order.at(-1), 'commit d');
  release();
  await d;
});

test('a commit that throws rejects the items it left unanswered, and the next group still commits', async () => {
  let calls = 0;
  let release: () => void = () => undefined;
  const commits = new GroupCommit<number, number>(async (group) => {
    calls++;
    if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
    else await Promise.resolve();
    if (calls === 2) {
      group[0]?.resolve(10);
      throw new Error('the disk went away');
    }
    for (const w of group) w.resolve(w.item * 10);
  });
  const zero = commits.submit(0);
  const one = commits.submit(1);
  const two = commits.submit(2);
  const three = commits.submit(3);
  release();
  assert.equal(await zero, 0);
  assert.equal(await one, 10, 'an item answered before the throw keeps its answer');
  await assert.rejects(two, /the disk went away/);
  await assert.rejects(three, /the disk went away/);
  assert.equal(await commits.submit(4), 40);
  assert.equal(calls, 3);
});
