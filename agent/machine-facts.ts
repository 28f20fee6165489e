// What an agent tells the coordinator about its machine when it connects.
import { cpus, release } from 'node:os';
import { loadManifest } from '../kernels/corpus.ts';
import type { MachineFacts } from '../shared/protocol/events.ts';
import { loadAverage, readGovernor } from './harness/environment.ts';
import { harnessSourceSha256 } from './harness/source-hash.ts';

export function machineFacts(): MachineFacts {
  const cpuList = cpus();
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
    loadAverage: loadAverage(),
    harnessSha256: harnessSourceSha256(),
    corpus,
  };
}
