// How a delivering run's finalization reads to people, the same in `status`, `follow` and the
// dashboard: finalization summarizes each machine's raw files in worker threads, and a run of a
// hundred machines takes long enough that "delivering" alone would look stuck.

/** "summarized 12 of 80 raw files" for RunSummary.summarized. */
export function summarizedText(s: { done: number; total: number }): string {
  return `summarized ${s.done} of ${s.total} raw file${s.total === 1 ? '' : 's'}`;
}
