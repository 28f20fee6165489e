// The summary of one raw file: for every (kernel, arm), the paired median speedup and CPU
// ratio over rounds with seeded percentile bootstrap intervals, wall time per job, time shares
// and failed checks. Derived only from the raw records, so the same file gives the same bytes.
import { parseArm } from '../../shared/arms.ts';
import { createRng, streamId } from '../../shared/prng.ts';
import { DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, type BootstrapSettings } from '../statistics/interval.ts';
import { pairedMedianRatio } from '../statistics/paired-bootstrap.ts';
import { medianOf } from '../statistics/quantile.ts';
import { parseRawLines, readRawFile } from '../raw/raw-reader.ts';
import type { ParsedRaw } from '../raw/raw-types.ts';
import { sampleFailed } from '../../shared/record-validate.ts';
import { pairRounds, type PairedGroup } from './round-pairs.ts';
import {
  DEFAULT_BOOTSTRAP_SEED,
  SUMMARY_FORMAT,
  SUMMARY_FORMAT_VERSION,
  type Problem,
  type Summary,
  type SummaryRow,
  type SummarySource,
} from './summary-types.ts';

export interface SummaryOptions {
  /** Bootstrap seed (default 1); recorded in the summary. */
  seed?: number;
  /** Bootstrap resamples (default 10,000). */
  resamples?: number;
  /** Two-sided confidence level (default 0.95). */
  confidence?: number;
}

interface ResolvedOptions extends BootstrapSettings {
  seed: number;
}

function resolve(options: SummaryOptions): ResolvedOptions {
  return {
    seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED,
    resamples: options.resamples ?? DEFAULT_RESAMPLES,
    confidence: options.confidence ?? DEFAULT_CONFIDENCE,
  };
}

/** The summary of raw lines (JSONL text lines or parsed records; line 1 the environment row). */
export function summarizeRecords(lines: readonly unknown[], options: SummaryOptions = {}, source: SummarySource | null = null): Summary {
  return summarizeParsed(parseRawLines(lines), options, source);
}

/** The summary of a raw file on disk. Throws only when the file cannot be read. */
export async function summarizeRawFile(path: string, options: SummaryOptions = {}): Promise<Summary> {
  const { parsed, source } = await readRawFile(path);
  return summarizeParsed(parsed, options, source);
}

export function summarizeParsed(parsed: ParsedRaw, options: SummaryOptions, source: SummarySource | null): Summary {
  const settings = resolve(options);
  const kernelOrder = parsed.environment ? Object.keys(parsed.environment.corpus) : [];
  const pairing = pairRounds(parsed.samples, kernelOrder);
  const problems: Problem[] = [...parsed.problems, ...pairing.problems];
  const rows = pairing.groups.map((group) => summarizeGroup(group, settings, problems));
  problems.sort((a, b) => (a.line ?? Number.POSITIVE_INFINITY) - (b.line ?? Number.POSITIVE_INFINITY));
  return {
    format: SUMMARY_FORMAT,
    formatVersion: SUMMARY_FORMAT_VERSION,
    source,
    bootstrap: { method: 'percentile', unit: 'round', confidence: settings.confidence, resamples: settings.resamples, seed: settings.seed },
    environment: parsed.environment,
    segments: parsed.segments,
    redone: parsed.redone,
    counts: {
      samples: parsed.samples.length,
      superseded: parsed.superseded.length,
      used: rows.reduce((n, r) => n + r.samples, 0),
      failed: parsed.samples.filter((s) => sampleFailed(s.record)).length,
    },
    rows,
    problems,
  };
}

/**
 * One row. Each statistic gets its own random stream, named after the kernel, the arm and the
 * statistic, so a row's interval depends only on its own rounds and the seed: not on the order
 * of lines, nor on which other kernels and arms the file holds. (So `benchfleet compare` can
 * summarize only the groups it needs and get exactly the summary's figures.) Rounds with a
 * native CPU of 0 are reported into `problems` when given.
 */
export function summarizeGroup(group: PairedGroup, options: SummaryOptions = {}, problems: Problem[] = []): SummaryRow {
  const settings = resolve(options);
  const { kernel, arm, rounds } = group;
  const rng = (statistic: string) => createRng(settings.seed, streamId(`${statistic}\u0000${kernel}\u0000${arm}`));
  // Speedup: native's per-round wall time over the arm's in the same round.
  const speedup = pairedMedianRatio(rounds.map((r) => ({ numerator: r.native.wallNs, denominator: r.arm.wallNs })), settings, rng('speedup'));
  // CPU ratio: the arm's per-round process CPU over native's in the same round.
  const cpuRounds = rounds.filter((r) => r.native.cpuUs > 0);
  for (const r of rounds) {
    if (r.native.cpuUs <= 0 && r.arm === r.native) {
      problems.push({ line: r.native.line, kind: 'zero-native-cpu', message: `line ${r.native.line}: native's process CPU for ${kernel} round ${r.round} is 0 µs; that round is left out of ${kernel}'s CPU ratios` });
    }
  }
  const cpuRatio = cpuRounds.length === 0 ? null : pairedMedianRatio(cpuRounds.map((r) => ({ numerator: r.arm.cpuUs, denominator: r.native.cpuUs })), settings, rng('cpu'));
  const width = widthOf(arm);
  let kernelNs = 0, kernelThreadNs = 0, resetNs = 0, resetThreadNs = 0;
  for (const r of rounds) {
    for (const repeat of r.arm.sample.repeats) {
      if (repeat.kernelNs !== null) {
        kernelNs += repeat.kernelNs;
        kernelThreadNs += repeat.wallNs * width;
      }
      if (repeat.resetNs !== null) {
        resetNs += repeat.resetNs;
        resetThreadNs += repeat.wallNs * width;
      }
    }
  }
  const failed = rounds.filter((r) => sampleFailed(r.arm.sample));
  return {
    kernel,
    arm,
    rounds: rounds.length,
    speedup,
    cpuRatio,
    wallPerJobNs: medianOf(rounds.map((r) => r.arm.wallNs / r.arm.sample.jobs)),
    kernelShare: kernelThreadNs > 0 ? kernelNs / kernelThreadNs : null,
    resetShare: resetThreadNs > 0 ? resetNs / resetThreadNs : null,
    samples: rounds.length,
    failures: failed.length,
    failedRounds: failed.map((r) => r.round),
    failureLines: [...new Set(failed.flatMap((r) => r.arm.sample.failures))].sort().slice(0, 5),
  };
}

function widthOf(arm: string): number {
  const spec = parseArm(arm);
  return spec.kind === 'native' ? 1 : spec.width;
}
