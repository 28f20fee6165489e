// Every row of a data folder's run index, keyed by run id rather than by the row keys (those
// depend on the order runs were indexed in), as sorted JSON lines: two indexes of the same runs
// compare equal as text whichever way they were built (the kept change detection too: the same
// flags whether its runs were indexed one by one or rebuilt).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { INDEX_FILE } from '../../store/run-index/index-schema.ts';

export function dumpIndex(dataDir: string): string {
  const db = new Database(join(dataDir, INDEX_FILE), { readonly: true });
  try {
    const rows = [
      ...db.prepare('SELECT run_id, plan_name, plan_sha256, state, created_at, manifest_sha256 FROM runs').all(),
      ...db.prepare('SELECT r.run_id, m.* FROM run_machines m JOIN runs r USING (run_key)').all().map((row) => ({ ...(row as object), run_key: undefined })),
      ...db.prepare('SELECT r.run_id, s.machine, s.policy, s.arm, s.kernel, c.* FROM cells c JOIN runs r USING (run_key) JOIN series s USING (series_key)').all().map((row) => ({ ...(row as object), run_key: undefined, series_key: undefined })),
      // The kept detection: each plan's fingerprint and flags (its state is left out: how many
      // runs a snapshot keeps depends on when it was compacted, not on the runs).
      ...db.prepare('SELECT plan_key, fingerprint FROM plan_families').all(),
      ...db.prepare('SELECT plan_key, machine, changes FROM family_detections').all(),
    ];
    return rows.map((r) => JSON.stringify(r)).sort().join('\n');
  } finally {
    db.close();
  }
}
