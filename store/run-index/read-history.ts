// One plan's history from the index, with its changes flagged: the query, then the pure
// series building and detection. What `history` prints and the dashboard's History page draws.
import { buildHistory } from '../../analysis/history/build-history.ts';
import type { DetectionSettings, HistoryView } from '../../analysis/history/history-types.ts';
import { queryHistory, type HistoryFilter } from './history-query.ts';
import type { RunIndex } from './run-index.ts';

export function readHistory(index: RunIndex, filter: Omit<HistoryFilter, 'lookback'>, settings: DetectionSettings): HistoryView {
  // The first shown run's window needs `window` earlier runs, and a change it may complete began up to maxLag - 1 runs before it.
  const rows = queryHistory(index, { ...filter, lookback: settings.window + settings.maxLag - 1 });
  return buildHistory(rows, settings);
}
