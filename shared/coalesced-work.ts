// Work that never runs twice at once, where every request made while it runs is served by one
// more run once it ends: a thousand requests during one run are two runs, not a thousand. The
// agent's record streamer flushes this way, and the coordinator saves its agent list this way.
//
// GroupCommit is the same loop for work that takes items and answers each: every item submitted
// while a group is being committed waits and goes in the next group, all together (a group
// commit). The record journal's synced writes, the record sink's writer of each raw file and the
// run lifecycle's saves of each run commit this way.

export class CoalescedWork {
  private readonly work: () => Promise<void>;
  private readonly goOn: () => boolean;
  private running: Promise<void> | null = null;
  private again = false;

  /** `goOn` is asked before each further run that a request made meanwhile wants; false ends the series. */
  constructor(work: () => Promise<void>, goOn: () => boolean = () => true) {
    this.work = work;
    this.goOn = goOn;
  }

  /** Runs the work, or, while it runs, asks for one more run; resolves once a run that started after this call has ended. */
  request(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.work();
        } while (this.again && this.goOn());
      } finally {
        // In the same step as the last look at `again`: a request that came after it starts a
        // run of its own instead of waiting on one that has already decided to end.
        this.running = null;
      }
    })();
    return this.running;
  }

  /** A run is going on, or about to go on. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Every run asked for so far has ended. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}

/** An item waiting for its group's commit, and how to answer it. */
export interface Waiting<T, R> {
  readonly item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export class GroupCommit<T, R> {
  private readonly commit: (group: Waiting<T, R>[]) => Promise<void>;
  private queue: Waiting<T, R>[] = [];
  private interludes: { step: () => Promise<void>; done: Waiting<null, void> }[] = [];
  private readonly loop = new CoalescedWork(() => this.round());

  /**
   * `commit` answers every item of its group (resolve or reject each, in any order). One that
   * throws instead rejects the items of its group it left unanswered; the next group goes on.
   */
  constructor(commit: (group: Waiting<T, R>[]) => Promise<void>) {
    this.commit = commit;
  }

  /** Queue `item` for the next group; resolves or rejects with its own answer once its group is committed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      void this.loop.request();
    });
  }

  /**
   * Run `step` between two groups, never during one: now when nothing is being committed,
   * otherwise once the group in flight is through and before the next. Resolves when it has run.
   */
  between(step: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.interludes.push({ step, done: { item: null, resolve, reject } });
      void this.loop.request();
    });
  }

  /** A group (or a step between groups) is being committed, or items wait for one. */
  get busy(): boolean {
    return this.loop.busy;
  }

  /** Everything submitted so far is answered and the committer is idle. */
  settled(): Promise<void> {
    return this.loop.settled();
  }

  private async round(): Promise<void> {
    for (const { step, done } of this.interludes.splice(0)) {
      try {
        await step();
        done.resolve();
      } catch (error) {
        done.reject(error);
      }
    }
    // Taken after the steps: what arrived while they ran goes in this group.
    const group = this.queue.splice(0);
    if (group.length === 0) return;
    try {
      await this.commit(group);
    } catch (error) {
      // Answering twice is harmless: a promise keeps its first answer.
      for (const w of group) w.reject(error);
    }
  }
}
