// The power-cut layer itself (test/crash/power-cut-fs.mjs) must not invent losses: a file that
// was synced and whose name was synced into its folder is in the image a cut leaves, byte for
// byte, also when its inode number was freed by another thread a moment before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POWER_CUT_LAYER, rebuildAfterCut } from '../helpers/power-cut.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CHILD = fileURLToPath(new URL('./inode-reuse-child.mjs', import.meta.url));

test('a file synced whole and named durably survives the cut byte for byte, though another thread freed its inode number just before', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t, 'bf-layer-');
  const root = join(dir, 'root');
  const shadow = join(dir, 'shadow');
  const env = { ...process.env, POWER_CUT_ROOT: root, POWER_CUT_SHADOW: shadow, NODE_OPTIONS: `--import=${POWER_CUT_LAYER}` };
  const child = spawn(process.execPath, [CHILD, root], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, err);
  assert.equal(out, 'done 400\n');
  await rebuildAfterCut(root, shadow);
  const names = (await readdir(join(root, 'kept'))).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  assert.equal(names.length, 400);
  const wrong: string[] = [];
  for (const name of names) {
    const text = await readFile(join(root, 'kept', name), 'utf8');
    if (text !== `file ${name.slice(1)}\n`) wrong.push(`${name}: ${JSON.stringify(text)}`);
  }
  assert.deepEqual(wrong, []);
});
