// Following a run live: per-machine progress (bars redrawn in place on a terminal, a line per
// change of state or tenth of progress otherwise), ending with the run's report.
import { BenchfleetError } from '../shared/errors.ts';
import type { RunSummary } from '../shared/protocol/events.ts';
import { request } from '../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../shared/protocol/events.ts';
import type { ControlSocket } from './control-client.ts';
import { unwrap } from './control-client.ts';

export interface FollowResult {
  run: RunSummary;
  markdown: string;
  dir: string;
}

function bar(done: number, total: number, width = 24): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}%`;
}

export async function followRun(socket: ControlSocket, runId: string, out: NodeJS.WriteStream = process.stderr): Promise<FollowResult> {
  const tty = out.isTTY;
  let drawn = 0;
  const lastTenth = new Map<string, string>();
  const render = (run: RunSummary): void => {
    const machines = Object.entries(run.machines);
    if (tty) {
      if (drawn > 0) out.write(`\x1b[${drawn}A`);
      for (const [name, m] of machines) out.write(`\x1b[2K  ${name.padEnd(16)} ${bar(m.done, m.total)} ${m.done}/${m.total} ${m.state}${m.message ? ` (${m.message})` : ''}\n`);
      drawn = machines.length;
      return;
    }
    for (const [name, m] of machines) {
      const key = `${m.state}:${m.total > 0 ? Math.floor((10 * m.done) / m.total) : 0}`;
      if (lastTenth.get(name) === key) continue;
      lastTenth.set(name, key);
      out.write(`${name}: ${m.state} ${m.done}/${m.total} samples${m.message ? ` (${m.message})` : ''}\n`);
    }
  };
  let latest: RunSummary | null = null;
  const onUpdate = (run: RunSummary): void => {
    if (run.runId !== runId) return;
    latest = run;
    render(run);
  };
  let onReport: (report: { runId: string; markdown: string; dir: string }) => void = () => undefined;
  let onDisconnect: () => void = () => undefined;
  const finished = new Promise<FollowResult>((resolve, reject) => {
    onReport = (report) => {
      if (report.runId !== runId) return;
      void request<ControlToCoordinator, 'status'>(socket, 10_000, 'status')
        .then((s) => {
          const run = unwrap(s).runs.find((r) => r.runId === runId) ?? latest;
          if (!run) throw new Error(`run ${runId} vanished from the coordinator`);
          render(run);
          resolve({ run, markdown: report.markdown, dir: report.dir });
        })
        .catch(reject);
    };
    onDisconnect = () => reject(new BenchfleetError('CONNECTION', 'lost the connection to the coordinator while following; `benchfleet status` shows where the run stands'));
  });
  socket.on('run:update', onUpdate);
  socket.on('run:report', onReport);
  socket.on('disconnect', onDisconnect);
  const current = unwrap(await request<ControlToCoordinator, 'run:follow'>(socket, 10_000, 'run:follow', runId));
  render(current);
  try {
    return await finished;
  } finally {
    // A series is followed run after run on one connection: leave no listener behind.
    socket.off('run:update', onUpdate);
    socket.off('run:report', onReport);
    socket.off('disconnect', onDisconnect);
  }
}
