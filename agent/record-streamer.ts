// Streams one run's record lines to the coordinator: msgpackr batches per policy with sequence
// numbers, one batch in flight at a time, dropped from memory only when acknowledged. At a
// harness's quiet window the lines go only if the run's last flush began RECORD_SEND_MS ago or
// more (flushIfDue); the end of the run flushes at once. After a
// reconnect it asks the coordinator where it stands (`run:resume`) and resends from there,
// reading the lines back from the spool, so nothing is lost and the coordinator drops duplicates.
import type { Socket } from 'socket.io-client';
import { errorMessage } from '../shared/errors.ts';
import { CoalescedWork } from '../shared/coalesced-work.ts';
import { createLogger } from '../shared/log.ts';
import type { Policy } from '../shared/policies.ts';
import { carriedProgress, encodeRecordBatch } from '../shared/protocol/batch.ts';
import { linesForBatch, RECORD_SEND_MS } from '../shared/protocol/limits.ts';
import type { AgentToCoordinator, CoordinatorToAgent, RunProgress } from '../shared/protocol/events.ts';
import { request } from '../shared/protocol/request.ts';
import { fromFailure } from '../shared/protocol/failure.ts';
import { validateBatchAck, validateResumePoint } from '../shared/protocol/validate.ts';
import type { RunSpool } from './run-spool.ts';

const log = createLogger('agent:stream');

/** Lines per batch: large enough to catch up quickly after an outage, small enough to ack fast. */
export const BATCH_LINES = 500;
const ACK_TIMEOUT_MS = 30_000;

export class RecordStreamer {
  readonly runId: string;
  private readonly socket: Socket<CoordinatorToAgent, AgentToCoordinator>;
  private readonly spool: RunSpool;
  private readonly policies: readonly Policy[];
  /** Per policy: the seq of pending[0], i.e. the next line the coordinator has not acknowledged. */
  private readonly base = new Map<Policy, number>();
  private readonly pending = new Map<Policy, string[]>();
  private synced = false;
  /** One flush at a time; flushes asked for meanwhile are one more, while the link is up. */
  private readonly flushes = new CoalescedWork(() => this.flushOnce(), () => this.socket.connected);
  /** False once the coordinator said it wants nothing more of this run. */
  wanted = true;
  /** When the last flush began (performance.now()); flushIfDue sends nothing before RECORD_SEND_MS after it. */
  private flushedAt = Number.NEGATIVE_INFINITY;
  private readonly sendEveryMs: number;
  /**
   * While a harness runs: its progress pacer's held report, if any (ProgressPacer.take), which
   * the next batch carries instead of a `run:progress` of its own.
   */
  progressToCarry: (() => RunProgress | null) | null = null;

  constructor(socket: Socket<CoordinatorToAgent, AgentToCoordinator>, spool: RunSpool, runId: string, policies: readonly Policy[], sendEveryMs = RECORD_SEND_MS) {
    this.socket = socket;
    this.spool = spool;
    this.runId = runId;
    this.policies = policies;
    this.sendEveryMs = sendEveryMs;
    for (const p of policies) {
      this.base.set(p, 0);
      this.pending.set(p, []);
    }
  }

  /** A line the harness has just written; sent with the next flush. */
  add(policy: Policy, seq: number, line: string): void {
    const pending = this.pending.get(policy);
    const base = this.base.get(policy);
    if (!pending || base === undefined) return;
    // Only append in order; anything else is re-read from the spool at the next resync.
    if (seq === base + pending.length) pending.push(line);
    else if (seq > base + pending.length) this.synced = false;
  }

  /** Lines not yet acknowledged. */
  unacknowledged(): number {
    let n = 0;
    for (const p of this.pending.values()) n += p.length;
    return this.synced ? n : Number.POSITIVE_INFINITY;
  }

  /** Forget what is in memory; the next flush asks the coordinator and rereads the spool. */
  resync(): void {
    this.synced = false;
  }

  /** Send whatever is pending now; resolves when it is acknowledged or the link is down (lines added meanwhile go with the next flush). */
  flush(): Promise<void> {
    return this.flushes.request();
  }

  /**
   * At a quiet window: flush as flush() does when the run's last flush began RECORD_SEND_MS ago or
   * more, or when the coordinator must first be asked where it stands; otherwise send nothing now
   * and resolve at once (the lines go at a later window, or with the flush at the run's end).
   */
  flushIfDue(): Promise<void> {
    if (this.synced && performance.now() - this.flushedAt < this.sendEveryMs) return Promise.resolve();
    return this.flush();
  }

  private async flushOnce(): Promise<void> {
    if (!this.socket.connected || !this.wanted) return;
    this.flushedAt = performance.now();
    try {
      if (!this.synced) await this.syncFromCoordinator();
      for (const policy of this.policies) {
        const pending = this.pending.get(policy) ?? [];
        // The lines pending now, in as many batches as they need; lines the harness adds
        // meanwhile go with a later flush, so a slow answer does not turn into a batch per answer.
        let left = pending.length;
        while (left > 0 && this.socket.connected) {
          const fromSeq = this.base.get(policy) ?? 0;
          const lines = linesForBatch(pending, Math.min(BATCH_LINES, left));
          const progress = this.progressToCarry?.() ?? null;
          const batch = encodeRecordBatch({ runId: this.runId, policy, fromSeq, lines, ...carriedProgress(progress) });
          const answer: unknown = await request<AgentToCoordinator, 'records'>(this.socket, ACK_TIMEOUT_MS, 'records', batch);
          const ack = this.checked(() => validateBatchAck(answer, fromSeq, lines.length), `the answer to the batch of ${policy} lines ${fromSeq} to ${fromSeq + lines.length}`);
          if (!ack.ok) {
            log.warn(`run ${this.runId} ${policy}: coordinator refused a batch: ${ack.message}`);
            this.synced = false;
            return;
          }
          const acknowledged = ack.next - fromSeq;
          pending.splice(0, Math.max(0, Math.min(acknowledged, pending.length)));
          this.base.set(policy, ack.next);
          left = Math.max(0, left - acknowledged);
        }
      }
    } catch (error) {
      // A timeout or a dropped link: resync on the next flush (after the reconnect).
      log.debug(`run ${this.runId}: flush interrupted: ${errorMessage(error)}`);
      this.synced = false;
    }
  }

  /** A message from the coordinator that fails its validator is refused with the reason logged, never trusted. */
  private checked<T>(validate: () => T, what: string): T {
    try {
      return validate();
    } catch (error) {
      log.warn(`run ${this.runId}: refusing ${what} from the coordinator: ${errorMessage(error)}`);
      throw error;
    }
  }

  private async syncFromCoordinator(): Promise<void> {
    const answer = await request<AgentToCoordinator, 'run:resume'>(this.socket, ACK_TIMEOUT_MS, 'run:resume', this.runId);
    if (!answer.ok) throw fromFailure(answer);
    // Read after the answer: the spool then holds at least every line the coordinator can have.
    const files = new Map<Policy, string[]>();
    const held: Partial<Record<Policy, number>> = {};
    for (const policy of this.policies) {
      const lines = await this.spool.readLines(this.runId, policy);
      files.set(policy, lines);
      held[policy] = lines.length;
    }
    const point = this.checked(() => validateResumePoint(answer.value, this.runId, held), 'the resume point');
    this.wanted = point.wanted;
    for (const policy of this.policies) {
      const next = point.next[policy] ?? 0;
      this.base.set(policy, next);
      this.pending.set(policy, (files.get(policy) ?? []).slice(next));
    }
    this.synced = true;
    const behind = [...this.pending.values()].reduce((n, p) => n + p.length, 0);
    if (behind > 0) log.info(`run ${this.runId}: sending ${behind} unacknowledged lines from the spool`);
  }
}
