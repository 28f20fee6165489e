// Machine names: one rule for the agent's --name and the coordinator's handshake, refusing
// anything that could clobber a run file, escape the run folder or render as markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNameProblem, validMachineName } from '../../shared/machine-name.ts';

test('ordinary host names are machine names', () => {
  for (const name of ['ryzen', 'm2pro', 'M2-Pro', 'lab_box.3', 'host.local', 'a', 'x'.repeat(63), '7900x']) assert.equal(machineNameProblem(name), null, name);
});

test('names that would clobber a run file or leave the run folder are refused, whatever their case', () => {
  const refused = ['report.md', 'run.json', 'manifest.json', 'plan.json', 'agents.json', 'whole.jsonl', 'REPORT.MD', 'Run.Json', 'notes.txt', 'x.tmp', '..', '.hidden', '../etc', 'a/b', 'a\\b', '', 'x'.repeat(64), 'tab\there', 'nl\n', 'nul\u0000'];
  for (const name of refused) assert.equal(validMachineName(name), false, JSON.stringify(name));
  assert.match(machineNameProblem('report.md') ?? '', /ends in "\.md" like a run file/);
  assert.match(machineNameProblem('../etc') ?? '', /path separators/);
  assert.match(machineNameProblem('.x') ?? '', /must not start with a dot/);
});

test('HTML-special characters and spaces are refused rather than escaped', () => {
  for (const name of ['<img src=x onerror=alert(1)>', 'a&b', 'say"hi"', "it's", 'two words']) assert.equal(validMachineName(name), false, name);
});

test('non-strings are refused', () => {
  for (const value of [undefined, null, 42, ['ryzen'], { name: 'ryzen' }]) assert.equal(validMachineName(value), false);
});
