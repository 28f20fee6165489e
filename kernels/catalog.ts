// Every kernel of the corpus, by name, with its spec. The build checks that this list and the
// sources in kernels/assembly name the same kernels. A module that only needs the names (to
// check a plan) imports kernels/kernel-names.ts instead, which loads none of the specs.
import { BenchfleetError } from '../shared/errors.ts';
import { KERNEL_NAMES, kernelNames } from './kernel-names.ts';
import type { KernelSpec } from './spec.ts';
import { aesCbcDecrypt } from './specs/aes-cbc-decrypt.ts';
import { aesCbcEncrypt } from './specs/aes-cbc-encrypt.ts';
import { chacha20 } from './specs/chacha20.ts';
import { hmacSha256 } from './specs/hmac-sha256.ts';
import { murmur3 } from './specs/murmur3.ts';
import { sha256 } from './specs/sha256.ts';
import { adler32 } from './specs/adler32.ts';
import { base64Decode } from './specs/base64-decode.ts';
import { base64Encode } from './specs/base64-encode.ts';
import { crc32 } from './specs/crc32.ts';
import { matmulF64 } from './specs/matmul-f64.ts';
import { md5 } from './specs/md5.ts';
import { sha1 } from './specs/sha1.ts';
import { sha512 } from './specs/sha512.ts';
import { siphash24 } from './specs/siphash24.ts';
import { sortU32 } from './specs/sort-u32.ts';
import { lz4Compress } from './specs/lz4-compress.ts';
import { lz4Decompress } from './specs/lz4-decompress.ts';
import { utf8Validate } from './specs/utf8-validate.ts';
import { inflate } from './specs/inflate.ts';
import { xxhash32 } from './specs/xxhash32.ts';

export const KERNELS: readonly KernelSpec[] = [
  aesCbcDecrypt,
  aesCbcEncrypt,
  chacha20,
  hmacSha256,
  murmur3,
  sha256,
  adler32,
  base64Decode,
  base64Encode,
  crc32,
  matmulF64,
  md5,
  sha1,
  sha512,
  siphash24,
  sortU32,
  lz4Compress,
  lz4Decompress,
  utf8Validate,
  inflate,
  xxhash32,
].sort((a, b) => a.name.localeCompare(b.name));

// The light list must name exactly these specs, in this order: a spec added here and not
// there would be refused in plans by the coordinator while the agent could run it.
if (KERNELS.map((k) => k.name).join(',') !== KERNEL_NAMES.join(',')) {
  throw new BenchfleetError('INTERNAL', `kernels/kernel-names.ts lists ${KERNEL_NAMES.join(', ')} but kernels/catalog.ts has specs for ${KERNELS.map((k) => k.name).join(', ')}: keep the two lists the same`);
}

const byName = new Map(KERNELS.map((k) => [k.name, k]));

export { kernelNames };

export function findKernel(name: string): KernelSpec {
  const spec = byName.get(name);
  if (!spec) throw new BenchfleetError('UNKNOWN_KERNEL', `unknown kernel "${name}"; known kernels: ${kernelNames().join(', ')}`);
  return spec;
}
