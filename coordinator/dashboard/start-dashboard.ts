// Starting the dashboard beside a coordinator: the one place that knows both.
import type { Coordinator } from '../server.ts';
import { coordinatorSource } from './coordinator-source.ts';
import { Dashboard } from './dashboard-server.ts';

export async function startDashboard(
  coordinator: Coordinator,
  listen: { host: string; port: number },
  checkToken: (presented: unknown) => boolean,
  tls?: { cert: Buffer; key: Buffer },
): Promise<Dashboard> {
  const dashboard = new Dashboard(coordinatorSource(coordinator), { host: listen.host, port: listen.port, checkToken, ...(tls ? { tls } : {}) });
  await dashboard.start();
  return dashboard;
}
