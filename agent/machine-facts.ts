// What an agent tells the coordinator about its machine when it connects.
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { loadManifest } from '../kernels/corpus.ts';
import type { MachineFacts } from '../shared/protocol/events.ts';
import { harnessSourceSha256 } from './harness/source-hash.ts';

/** The CPU frequency governor (Linux), or null where it cannot be read. */
export function readGovernor(): string | null {
  try {
    return readFileSync('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function machineFacts(): MachineFacts {
  const cpuList = cpus();
  const [l1 = 0, l5 = 0, l15 = 0] = loadavg();
  const corpus: Record<string, string> = {};
  for (const k of loadManifest().kernels) corpus[k.name] = k.sha256;
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    platform: process.platform,
    osRelease: release(),
    arch: process.arch,
    node: process.versions.node,
    v8: process.versions.v8,
    governor: readGovernor(),
    loadAverage: [l1, l5, l15],
    harnessSha256: harnessSourceSha256(),
    corpus,
  };
}
