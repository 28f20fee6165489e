// A machine's progress through a run: a bar, the sample count and the time left.
import type { MachineProgressView } from '../../coordinator/dashboard/dashboard-views.ts';
import { machineStateText } from '../../shared/queue-place.ts';
import { h } from './dom.ts';
import { formatDuration } from './format.ts';

export function progressBar(m: MachineProgressView): HTMLElement {
  const total = Math.max(m.total, m.done, 1);
  const eta = m.waiting !== null ? `, waiting: ${m.waiting}` : m.state === 'running' && m.etaSeconds !== null ? `, about ${formatDuration(m.etaSeconds)} left` : '';
  return h(
    'span',
    { class: `progress state-${m.state}` },
    h('progress', { max: total, value: m.done, 'data-machine': m.name, 'aria-label': `${m.name} progress` }),
    h('span', { class: 'progress-text' }, `${m.done}/${m.total} ${machineStateText({ state: m.state, ...(m.queue !== null ? { queue: m.queue } : {}) })}${eta}`),
  );
}
