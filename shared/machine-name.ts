// Machine names, checked the same way by the agent's CLI and by the coordinator. A name becomes
// a folder inside every run folder, beside the run's own files (plan.json, run.json, report.md,
// manifest.json), and a column in every table, so it must be a plain folder name that can never
// clobber one of those files, on a case-insensitive file system (macOS) too.
//
// Decided: HTML-special characters (`<`, `>`, `&`, quotes), spaces and anything outside
// [A-Za-z0-9._-] are refused rather than escaped, so a name is safe in a path, a shell, a
// Markdown table and a web page alike (the dashboard escapes what it shows all the same).

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * Endings of the files a run folder holds or may hold (raw and summary files, reports,
 * manifests, temporary files of atomic writes): a machine folder must never be named like one.
 */
const RESERVED_ENDINGS = ['.json', '.jsonl', '.md', '.txt', '.csv', '.html', '.htm', '.tmp', '.lock', '.log', '.pem'];

/** What is wrong with `name` as a machine name, or null when it is fine. */
export function machineNameProblem(name: unknown): string | null {
  if (typeof name !== 'string' || name === '') return 'a machine name must be a non-empty string';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\x00-\x1f\x7f]/.test(name)) return 'control characters are not allowed';
  if (name.includes('/') || name.includes('\\')) return 'path separators are not allowed';
  if (name.startsWith('.')) return 'it must not start with a dot';
  if (name.length > 63) return 'it is longer than 63 characters';
  if (!NAME.test(name)) return 'use letters, digits, ".", "_" and "-" only, starting with a letter or digit (no spaces or <>&"\')';
  const lower = name.toLowerCase();
  const ending = RESERVED_ENDINGS.find((e) => lower.endsWith(e));
  if (ending) return `it ends in "${ending}" like a run file (report.md, run.json, plan.json, manifest.json, <policy>.jsonl) and could clobber one`;
  return null;
}

export function validMachineName(name: unknown): name is string {
  return machineNameProblem(name) === null;
}

/** One line naming the bad name and why, for errors. */
export function describeBadMachineName(name: unknown): string {
  return `"${String(name)}" is not a valid machine name: ${machineNameProblem(name) ?? 'it is fine'}`;
}
