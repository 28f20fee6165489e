// Carrying a user's module in the plan: `benchfleet run`, `campaign start` and `harness` read the
// module file and the input folder each `modules` entry names (relative to the plan file),
// check the file against the pinned SHA-256, write the bytes in as base64, and check the
// context contract (prepare.ts) so a module that breaks it is refused before the plan is hashed
// or sent. A plan that already carries its bytes comes back byte for byte, so an agent's harness
// child, which reads the plan the coordinator sent, hashes exactly what the coordinator hashed.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readFile(path: string, field: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new BenchfleetError('FILE_NOT_FOUND', `${field}: cannot read ${path}: ${errorMessage(error)}`);
  }
}

/** Fill in one module's `wasm` (and its folder's `files`); true when something was added. */
function packModule(doc: Record<string, unknown>, base: string, field: string): boolean {
  let changed = false;
  if (doc['wasm'] === undefined && typeof doc['file'] === 'string') {
    const bytes = readFile(resolve(base, doc['file']), `${field}.file`);
    const digest = sha256Hex(bytes);
    if (typeof doc['sha256'] === 'string' && doc['sha256'] !== digest) {
      throw new BenchfleetError('PLAN_INVALID', `${field}.file ${doc['file']} has SHA-256 ${digest}, but the plan pins ${doc['sha256']}`);
    }
    doc['wasm'] = Buffer.from(bytes).toString('base64');
    changed = true;
  }
  const inputs = doc['inputs'];
  if (isObject(inputs) && typeof inputs['folder'] === 'string' && inputs['files'] === undefined) {
    const folder = resolve(base, inputs['folder']);
    let names: string[];
    try {
      names = readdirSync(folder).filter((n) => !n.startsWith('.') && statSync(join(folder, n)).isFile()).sort();
    } catch (error) {
      throw new BenchfleetError('FILE_NOT_FOUND', `${field}.inputs.folder: cannot read ${folder}: ${errorMessage(error)}`);
    }
    if (names.length === 0) throw new BenchfleetError('PLAN_INVALID', `${field}.inputs.folder ${folder} holds no files`);
    inputs['files'] = names.map((name) => {
      const bytes = readFile(join(folder, name), `${field}.inputs.folder`);
      return { name, sha256: sha256Hex(bytes), base64: Buffer.from(bytes).toString('base64') };
    });
    changed = true;
  }
  return changed;
}

/**
 * The plan text to hash and send: unchanged when no module entry needs its file read; otherwise
 * re-serialized with the bytes written in. `planPath` is where relative `file` and `folder`
 * paths start. Text that is not a JSON object is returned as it is, for the validator to refuse.
 */
export function packPlanModules(planText: string, planPath: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(planText);
  } catch {
    return planText;
  }
  if (!isObject(doc) || !Array.isArray(doc['modules'])) return planText;
  const base = dirname(planPath);
  let changed = false;
  doc['modules'].forEach((m: unknown, i) => {
    if (isObject(m) && packModule(m, base, `plan.modules[${i}]`)) changed = true;
  });
  return changed ? `${JSON.stringify(doc, null, 2)}\n` : planText;
}
