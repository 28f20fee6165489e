// What an agent tells the coordinator about its machine when it connects (on a Mac also its
// core kinds, power source, Low Power Mode and thermal limit: agent/harness/macos-facts.ts).
import { cpus, release } from 'node:os';
import { loadManifest } from '../kernels/corpus.ts';
import type { MachineFacts } from '../shared/protocol/events.ts';
import { loadAverage, readGovernor, type HostProbe } from './harness/environment.ts';
import { readMacosFacts } from './harness/macos-facts.ts';
import { harnessSourceSha256 } from './harness/source-hash.ts';

/** `probe`: the platform and command runner to read macOS facts with (a test's own; default this host's). */
export function machineFacts(probe?: HostProbe): MachineFacts {
  const cpuList = cpus();
  const macos = probe ? readMacosFacts(probe.platform, probe.run) : readMacosFacts();
  const corpus: Record<string, string> = {};
  const trackedCorpus: Record<string, string> = {};
  for (const k of loadManifest().kernels) {
    corpus[k.name] = k.sha256;
    if (k.tracked) trackedCorpus[k.name] = k.tracked.sha256;
  }
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
    trackedCorpus,
    ...(macos ? { macos } : {}),
  };
}
