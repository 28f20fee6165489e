// The arena layout every kernel shares (AssemblyScript). The host reads these values from
// each module's exports, never from a copy kept by hand.
//   [0, 64 KiB)          static data of the AssemblyScript runtime and the kernel's tables
//   [64 KiB, 1016 KiB)   scratch: a kernel's working state, cleared by the kernel on every call
//   [1016 KiB, 1 MiB)    reserved: the dirty map of the tracked twins (kernels/dirty-map.ts); no
//                        kernel touches it, the instrumentation alone writes it
//   [1 MiB, 4 MiB)       input: the host writes the job's bytes here
//   [4 MiB, 8 MiB)       output: the kernel writes its result bytes here
export const SCRATCH_PTR: usize = 0x10000;
export const SCRATCH_CAP: usize = 0xee000;
export const INPUT_PTR: usize = 0x100000;
export const INPUT_CAP: usize = 0x300000;
export const OUTPUT_PTR: usize = 0x400000;
export const OUTPUT_CAP: usize = 0x400000;
