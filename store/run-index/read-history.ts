// One plan's history from the index, with its changes flagged: the query, then the pure
// series building and detection (or the flags the index keeps, family-detections.ts). What
// `history` prints and the dashboard's History page draws.
import { buildHistory } from '../../analysis/history/build-history.ts';
import type { DetectionSettings, HistoryView } from '../../analysis/history/history-types.ts';
import { keptSettings, storedFlags } from './family-detections.ts';
import { queryHistory, type HistoryFilter } from './history-query.ts';
import type { RunIndex } from './run-index.ts';

export function readHistory(index: RunIndex, filter: Omit<HistoryFilter, 'lookback' | 'read'>, settings: DetectionSettings): HistoryView {
  // The first shown run's window needs `window` earlier runs, and a change it may complete began up to maxLag - 1 runs before it.
  const lookback = settings.window + settings.maxLag - 1;
  // The index keeps each plan's flags over its whole history at the default settings: a view of
  // the whole history reads them and only the cells it shows. A view from a later run (--since,
  // --last) starts the rule there, so it runs it, over the few runs it reads (a --since or --last
  // that reaches the first run gives the same flags either way).
  if (keptSettings(settings) && filter.since === undefined && filter.last === undefined) {
    const shown = queryHistory(index, { ...filter, lookback, read: 'shown' });
    if (shown.runs.length === shown.planRuns) {
      const flags = storedFlags(index.database, shown.planKey, shown.runs.map((r) => r.run_id), new Set(shown.cells.map((c) => c.machine)));
      if (flags !== null) return buildHistory(shown, settings, flags);
    }
  }
  return buildHistory(queryHistory(index, { ...filter, lookback }), settings);
}
