// The Mac facts (core kinds, power source, Low Power Mode, thermal limit) read through the
// command-runner seam from outputs recorded in the commands' documented formats
// (test/fixtures/macos), so the Mac path runs here; and the Linux path, which runs no command
// and records exactly what it did before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { environmentRecord, type RunIdentity } from '../../agent/harness/environment.ts';
import { readMacosFacts, spinCoreBudget, type CommandRunner, type MacosFacts } from '../../agent/harness/macos-facts.ts';
import { machineFacts } from '../../agent/machine-facts.ts';
import { validateEnvironment } from '../../shared/record-validate.ts';
import { STUDY_PLAN } from '../../shared/plan.ts';
import { validateFacts } from '../../shared/protocol/validate.ts';

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/macos/${name}`, import.meta.url), 'utf8');

const SYSCTL = 'sysctl -n hw.perflevel0.physicalcpu hw.perflevel1.physicalcpu';

/** A runner that answers each command from a fixture (or fails it), and records what was asked. */
function recorded(answers: Record<string, string | { fails: string }>): { run: CommandRunner; asked: string[] } {
  const asked: string[] = [];
  const run: CommandRunner = (file, args) => {
    const command = [file, ...args].join(' ');
    asked.push(command);
    const answer = answers[command];
    if (answer === undefined) return { ok: false, why: `ENOENT (no answer for ${command})` };
    if (typeof answer === 'object') return { ok: false, why: answer.fails };
    return { ok: true, stdout: fixture(answer) };
  };
  return { run, asked };
}

const M2PRO_ON_AC = {
  [SYSCTL]: 'sysctl-perflevels-m2pro.txt',
  'pmset -g batt': 'pmset-batt-ac.txt',
  'pmset -g': 'pmset-g.txt',
  'pmset -g therm': 'pmset-therm-none.txt',
};

const identity: RunIdentity = { machine: 'm2pro', planSha256: 'a'.repeat(64), harnessSha256: 'b'.repeat(64), corpus: {}, inputs: {}, loadWait: null };

test('an M2 Pro on its charger: 8 performance and 4 efficiency cores, AC power, Low Power Mode off, no thermal limit recorded', () => {
  const { run, asked } = recorded(M2PRO_ON_AC);
  const facts = readMacosFacts('darwin', run);
  assert.deepEqual(facts, { performanceCores: 8, efficiencyCores: 4, powerSource: 'ac', lowPowerMode: false, cpuSpeedLimit: null, thermalWarningLevel: 0, unreadable: [] });
  assert.deepEqual(asked, [SYSCTL, 'pmset -g batt', 'pmset -g', 'pmset -g therm']);
});

test('a MacBook on battery in Low Power Mode with its CPU speed limited to 71% records all three', () => {
  const { run } = recorded({ ...M2PRO_ON_AC, 'pmset -g batt': 'pmset-batt-battery.txt', 'pmset -g': 'pmset-g-lowpower.txt', 'pmset -g therm': 'pmset-therm-limited.txt' });
  const facts = readMacosFacts('darwin', run);
  assert.equal(facts?.powerSource, 'battery');
  assert.equal(facts?.lowPowerMode, true);
  assert.equal(facts?.cpuSpeedLimit, 71);
  assert.deepEqual(facts?.unreadable, []);
  const desktop = readMacosFacts('darwin', recorded({ ...M2PRO_ON_AC, 'pmset -g batt': 'pmset-batt-desktop.txt' }).run);
  assert.equal(desktop?.powerSource, 'ac');
});

test('facts that cannot be read are null and say why: an Intel Mac has no core kinds, an older macOS no Low Power Mode', () => {
  const { run } = recorded({ ...M2PRO_ON_AC, [SYSCTL]: { fails: fixture('sysctl-intel-stderr.txt').trim() }, 'pmset -g': 'pmset-g-no-lowpowermode.txt', 'pmset -g therm': { fails: 'ENOENT' } });
  const facts = readMacosFacts('darwin', run);
  assert.deepEqual(facts, {
    performanceCores: null,
    efficiencyCores: null,
    powerSource: 'ac',
    lowPowerMode: null,
    cpuSpeedLimit: null,
    thermalWarningLevel: null,
    unreadable: [
      `${SYSCTL}: sysctl: unknown oid 'hw.perflevel0.physicalcpu'`,
      'Low Power Mode: pmset -g has no lowpowermode setting',
      'pmset -g therm: ENOENT',
    ],
  });
});

test('on Linux no command runs and neither the environment row nor the machine facts gain a macos field', () => {
  const { run, asked } = recorded(M2PRO_ON_AC);
  assert.equal(readMacosFacts('linux', run), null);
  const row = environmentRecord('pages', STUDY_PLAN, identity, { platform: 'linux', run });
  assert.equal('macos' in row, false);
  assert.equal('macos' in machineFacts({ platform: 'linux', run }), false);
  assert.deepEqual(asked, []);
  assert.equal(spinCoreBudget(null, 12), 12, 'every CPU counts for spinning, as before');
});

test('on a Mac the environment row and the machine facts carry the facts, and both validators keep them', () => {
  const { run } = recorded(M2PRO_ON_AC);
  const row = environmentRecord('pages', STUDY_PLAN, identity, { platform: 'darwin', run });
  const checked = validateEnvironment(JSON.parse(JSON.stringify(row)));
  assert.ok(checked.ok, checked.ok ? '' : checked.message);
  assert.equal(checked.value.macos?.performanceCores, 8);
  const facts = validateFacts(JSON.parse(JSON.stringify(machineFacts({ platform: 'darwin', run }))));
  assert.equal(facts.macos?.efficiencyCores, 4);
  const broken = { ...machineFacts({ platform: 'darwin', run }), macos: { ...(row.macos as MacosFacts), powerSource: 'solar' } };
  assert.throws(() => validateFacts(broken), /facts\.macos powerSource must be "ac", "battery" or null/);
  const badRow = validateEnvironment({ ...row, macos: { ...(row.macos as MacosFacts), performanceCores: -1 } });
  assert.equal(badRow.ok, false);
});

test('TaskPool\'s spin budget on Apple silicon is the performance cores, not every CPU', () => {
  const m2pro = readMacosFacts('darwin', recorded(M2PRO_ON_AC).run);
  // 12 CPUs, 8 of them performance cores: a width-8 pool (9 threads) must not spin, a width-4 one may.
  assert.equal(spinCoreBudget(m2pro, 12), 8);
  assert.equal(spinCoreBudget(m2pro, 6), 6, 'never more than this process may use');
  const intel = readMacosFacts('darwin', recorded({ ...M2PRO_ON_AC, [SYSCTL]: { fails: 'unknown oid' } }).run);
  assert.equal(spinCoreBudget(intel, 8), 8);
});
