// Work that never runs twice at once, where every request made while it runs is served by one
// more run once it ends: a thousand requests during one run are two runs, not a thousand. The
// agent's record streamer flushes this way, and the coordinator saves its agent list this way.

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
      do {
        this.again = false;
        await this.work();
      } while (this.again && this.goOn());
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Every run asked for so far has ended. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}
