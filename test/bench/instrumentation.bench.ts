// What the tracked twin's marking costs each kernel: the native arm's loop (write the input,
// run, read the output; no reset) on the plain module and on its twin, in interleaved batches on
// one thread, the median per job of each. Also the cards one job marks, and the writes the twin
// marks (static counts): a kernel whose inner loop stores on every step (sort, AES, the LZ4
// codecs) pays more than one that stores once per call (the hashes). No target: the figures
// explain the tracked column of the study table (docs/policies.md).
import { findKernel, kernelNames } from '../../kernels/catalog.ts';
import { loadKernelModule, loadManifest } from '../../kernels/corpus.ts';
import { DIRTY_MAP_BYTES } from '../../kernels/dirty-map.ts';
import { instantiateKernel, runOnce, type KernelInstance } from '../../kernels/instance.ts';

const BATCHES = 11;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

console.log('kernel            plain µs/job   twin µs/job   overhead   cards/job   marked stores/fills/copies');
for (const name of kernelNames()) {
  const spec = findKernel(name);
  const input = spec.generate(1, spec.defaultSize);
  const plain = instantiateKernel(loadKernelModule(name));
  const twin = instantiateKernel(loadKernelModule(name, 'tracked'));
  // Jobs per batch: about 20 ms of the plain kernel.
  const t0 = performance.now();
  runOnce(plain, input);
  const jobs = Math.max(1, Math.min(2000, Math.round(20 / Math.max(performance.now() - t0, 0.001))));
  const batch = (k: KernelInstance): number => {
    const start = performance.now();
    for (let j = 0; j < jobs; j++) runOnce(k, input);
    return ((performance.now() - start) * 1000) / jobs;
  };
  batch(plain);
  batch(twin);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < BATCHES; i++) {
    if (i % 2 === 0) {
      a.push(batch(plain));
      b.push(batch(twin));
    } else {
      b.push(batch(twin));
      a.push(batch(plain));
    }
  }
  const fresh = instantiateKernel(loadKernelModule(name, 'tracked'));
  runOnce(fresh, input);
  const map = new Uint8Array(fresh.memory.buffer, fresh.layout.dirtyMapPtr ?? 0, DIRTY_MAP_BYTES);
  const cards = map.reduce((n, x) => n + x, 0);
  const marks = loadManifest().kernels.find((k) => k.name === name)?.tracked?.marks;
  const pa = median(a);
  const pb = median(b);
  console.log(
    `${name.padEnd(17)} ${pa.toFixed(2).padStart(12)} ${pb.toFixed(2).padStart(13)} ${`${((pb / pa - 1) * 100).toFixed(1)}%`.padStart(10)} ${String(cards).padStart(11)}   ${marks ? `${marks.stores}/${marks.fills}/${marks.copies}` : '?'}`,
  );
}
console.log('(cards/job: 1 KiB cards the kernel itself marks in one job; the host adds the input\'s cards)');
