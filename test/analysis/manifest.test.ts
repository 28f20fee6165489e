// manifest.json lists every artifact of a run folder with byte length and SHA256, and
// --verify names each file that changed, went missing or appeared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyManifest, writeManifest } from '../../analysis/raw/manifest.ts';
import { runCli } from '../helpers/run-cli.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

async function runFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bf-manifest-'));
  await mkdir(join(dir, 'ryzen'));
  await mkdir(join(dir, 'm2pro'));
  const files: Record<string, string> = {
    'plan.json': '{"rounds":7}\n',
    'run.json': '{"state":"running"}\n',
    'report.md': '| Kernel |\n',
    'ryzen/pages.jsonl': '{"type":"environment"}\n',
    'ryzen/pages.summary.json': '{}\n',
    'm2pro/pages.jsonl': '{"type":"environment","machine":"m2pro"}\n',
    'ryzen/.pages.summary.json.1234.tmp': 'half a summ',
  };
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text);
  return dir;
}

test('a manifest lists every artifact with its kind, byte length and SHA256, sorted by path', async () => {
  const dir = await runFolder();
  try {
    const manifest = await writeManifest(dir);
    assert.deepEqual(manifest.files, [
      { path: 'm2pro/pages.jsonl', kind: 'raw', bytes: 41, sha256: sha('{"type":"environment","machine":"m2pro"}\n') },
      { path: 'plan.json', kind: 'plan', bytes: 13, sha256: sha('{"rounds":7}\n') },
      { path: 'report.md', kind: 'report', bytes: 11, sha256: sha('| Kernel |\n') },
      { path: 'ryzen/pages.jsonl', kind: 'raw', bytes: 23, sha256: sha('{"type":"environment"}\n') },
      { path: 'ryzen/pages.summary.json', kind: 'summary', bytes: 3, sha256: sha('{}\n') },
    ]);
    assert.deepEqual(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')), manifest);
    // run.json is the coordinator's changing state, not an artifact: changing it is fine.
    await writeFile(join(dir, 'run.json'), '{"state":"completed"}\n');
    assert.deepEqual(await verifyManifest(dir), { ok: true, checked: 5, differences: [] });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('verify names each changed, missing and unlisted file', async () => {
  const dir = await runFolder();
  try {
    await writeManifest(dir);
    await writeFile(join(dir, 'ryzen/pages.jsonl'), '{"type":"environment"}\n{"type":"sample"}\n');
    await unlink(join(dir, 'report.md'));
    await writeFile(join(dir, 'm2pro/extra.jsonl'), 'x\n');
    const verdict = await verifyManifest(dir);
    assert.equal(verdict.ok, false);
    assert.deepEqual(
      verdict.differences.map((d) => [d.path, d.problem]),
      [['m2pro/extra.jsonl', 'unlisted'], ['report.md', 'missing'], ['ryzen/pages.jsonl', 'changed']],
    );
    assert.deepEqual(verdict.differences[2]?.actual, { bytes: 41, sha256: sha('{"type":"environment"}\n{"type":"sample"}\n') });

    const cli = await runCli(['manifest', dir, '--verify']);
    assert.equal(cli.code, 1);
    assert.deepEqual(cli.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).join(' ')), [
      'unlisted: m2pro/extra.jsonl',
      'missing: report.md',
      'changed: ryzen/pages.jsonl',
    ]);
    assert.equal(cli.stderr, `Error [MANIFEST_MISMATCH]: 3 files in ${dir} differ from its manifest.json\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('verify without a manifest says how to make one', async () => {
  const dir = await runFolder();
  try {
    await assert.rejects(verifyManifest(dir), { code: 'FILE_NOT_FOUND', message: `no manifest.json in ${dir}; write one with \`benchfleet manifest ${dir}\`` });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
