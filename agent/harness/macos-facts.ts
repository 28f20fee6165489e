// What decides a Mac's performance and what a Mac's environment row and machine facts record:
// performance and efficiency core counts (Apple silicon runs a pool's threads on either kind),
// the power source and Low Power Mode (both lower clocks), and thermal pressure where macOS
// reports it. Each is read from a command (sysctl, pmset) through a small runner seam, so the
// parsing is tested on Linux with outputs recorded in test/fixtures/macos. A fact that cannot
// be read is null, and `unreadable` says which and why, for the report's notes.
// On every other platform nothing here runs: the Linux records are what they were.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { MacosFacts } from '../../shared/macos-facts.ts';

export type { MacosFacts };

/** What a command printed on stdout, or why it could not run or failed. */
export type CommandOutput = { ok: true; stdout: string } | { ok: false; why: string };

/** Runs one command to completion (a few seconds at most) and returns its stdout. */
export type CommandRunner = (file: string, args: readonly string[]) => CommandOutput;

export const runCommand: CommandRunner = (file, args) => {
  try {
    return { ok: true, stdout: execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 }) };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    const stderr = typeof e.stderr === 'string' ? e.stderr.trim().split('\n')[0] : '';
    return { ok: false, why: stderr || e.code || e.message };
  }
};

function wholeNumber(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text.trim())) return null;
  return Number(text.trim());
}

/** `sysctl -n hw.perflevel0.physicalcpu hw.perflevel1.physicalcpu`: two lines, performance then efficiency cores. */
export function parsePerfLevels(stdout: string): { performance: number | null; efficiency: number | null } {
  const [p, e] = stdout.trim().split('\n');
  return { performance: wholeNumber(p), efficiency: wholeNumber(e) };
}

/** `pmset -g batt`: its first line says "Now drawing from 'AC Power'" (or 'Battery Power', 'UPS Power'). */
export function parsePowerSource(stdout: string): 'ac' | 'battery' | null {
  const source = /Now drawing from '([^']+)'/.exec(stdout)?.[1];
  if (source === undefined) return null;
  return /battery/i.test(source) ? 'battery' : 'ac';
}

/** `pmset -g`: the " lowpowermode  N" line of the settings in use; null when there is none. */
export function parseLowPowerMode(stdout: string): boolean | null {
  const value = /^\s*lowpowermode\s+(\d+)/m.exec(stdout)?.[1];
  return value === undefined ? null : value !== '0';
}

/** `pmset -g therm`: CPU_Speed_Limit (percent) and the thermal warning level, each null when not reported. */
export function parseThermal(stdout: string): { cpuSpeedLimit: number | null; warningLevel: number | null } {
  const limit = /CPU_Speed_Limit\s*=\s*(\d+)/.exec(stdout)?.[1];
  let warningLevel: number | null = null;
  if (/No thermal warning level has been recorded/i.test(stdout)) warningLevel = 0;
  const level = /thermal warning level[^\d\n]*(\d+)/i.exec(stdout)?.[1];
  if (level !== undefined) warningLevel = Number(level);
  return { cpuSpeedLimit: limit === undefined ? null : Number(limit), warningLevel };
}

/** The Mac's facts, or null on any other platform (where no command is run). */
export function readMacosFacts(platform: NodeJS.Platform = process.platform, run: CommandRunner = runCommand): MacosFacts | null {
  if (platform !== 'darwin') return null;
  const unreadable: string[] = [];
  const read = (file: string, args: readonly string[]): string | null => {
    const out = run(file, args);
    if (out.ok) return out.stdout;
    unreadable.push(`${[file, ...args].join(' ')}: ${out.why}`);
    return null;
  };
  const levels = read('sysctl', ['-n', 'hw.perflevel0.physicalcpu', 'hw.perflevel1.physicalcpu']);
  const { performance, efficiency } = levels === null ? { performance: null, efficiency: null } : parsePerfLevels(levels);
  if (levels !== null && (performance === null || efficiency === null)) unreadable.push(`core kinds: sysctl printed ${JSON.stringify(levels.trim())}`);
  const batt = read('pmset', ['-g', 'batt']);
  const powerSource = batt === null ? null : parsePowerSource(batt);
  if (batt !== null && powerSource === null) unreadable.push('power source: pmset -g batt did not say what it draws from');
  const settings = read('pmset', ['-g']);
  const lowPowerMode = settings === null ? null : parseLowPowerMode(settings);
  if (settings !== null && lowPowerMode === null) unreadable.push('Low Power Mode: pmset -g has no lowpowermode setting');
  const therm = read('pmset', ['-g', 'therm']);
  const thermal = therm === null ? { cpuSpeedLimit: null, warningLevel: null } : parseThermal(therm);
  return {
    performanceCores: performance,
    efficiencyCores: efficiency,
    powerSource,
    lowPowerMode,
    cpuSpeedLimit: thermal.cpuSpeedLimit,
    thermalWarningLevel: thermal.warningLevel,
    unreadable,
  };
}

let cached: MacosFacts | null | undefined;

/** readMacosFacts() of this process, read once (the core counts do not change; the pool asks per sample). */
export function macosFactsOnce(): MacosFacts | null {
  if (cached === undefined) cached = readMacosFacts();
  return cached;
}

/**
 * How many threads may spin at once, each on a core of its own: on Apple silicon the
 * performance cores (a spinner on an efficiency core is slower than the thread it waits for,
 * and the scheduler puts it there once the P cores are busy), elsewhere every CPU this process may use.
 */
export function spinCoreBudget(facts: MacosFacts | null = macosFactsOnce(), available: number = availableParallelism()): number {
  const performance = facts?.performanceCores;
  return performance !== null && performance !== undefined && performance > 0 ? Math.min(performance, available) : available;
}
