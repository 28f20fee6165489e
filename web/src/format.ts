// How figures and times read on the pages.

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '-';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function formatTime(iso: string | null): string {
  if (iso === null) return '-';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** Seconds between two ISO times, or null. */
export function secondsBetween(from: string, to: string | null): number | null {
  if (to === null) return null;
  return (new Date(to).getTime() - new Date(from).getTime()) / 1000;
}

export function formatAgo(iso: string, now = Date.now()): string {
  const seconds = (now - new Date(iso).getTime()) / 1000;
  return seconds < 5 ? 'just now' : `${formatDuration(seconds)} ago`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export const fixed2 = (x: number): string => x.toFixed(2);

/** "a, b, c and 997 more": the names a run list item carries, and how many it has in all. */
export function namesAndMore(names: readonly string[], total: number): string {
  const more = total - names.length;
  return more > 0 ? `${names.join(', ')} and ${more} more` : names.join(', ');
}
