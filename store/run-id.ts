// Run ids: a UTC time prefix so that a plain listing sorts by start time, and a nanoid suffix
// so that two runs started in the same second never collide. Example: 20261130-031502-k3v9x2.
import { customAlphabet } from 'nanoid';

const suffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

export function newRunId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2026-11-30T03:15:02.123Z
  const stamp = `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`;
  return `${stamp}-${suffix()}`;
}
