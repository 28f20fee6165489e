// Live updates from the dashboard's `/ui` socket.io namespace: the fleet and each run as they
// change. The session cookie authenticates the connection; pages only listen.
import { io, type Socket } from 'socket.io-client';
import { UI_NAMESPACE, type DashboardToUi } from '../../coordinator/dashboard/dashboard-views.ts';

let socket: Socket<DashboardToUi, Record<string, never>> | null = null;

export function live(): Socket<DashboardToUi, Record<string, never>> {
  socket ??= io(UI_NAMESPACE, { path: '/live/', withCredentials: true, transports: ['websocket', 'polling'] });
  return socket;
}
