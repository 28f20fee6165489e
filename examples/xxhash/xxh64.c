// xxHash's XXH64, from the xxhash.h that Debian's libxxhash-dev installs (the whole
// library as one header: XXH_INLINE_ALL), compiled to wasm32 by examples/build.sh. The glue is
// the only code here: a buffer the host writes the input into, one where the digest goes, and
// an exported function that hashes `length` input bytes. benchfleet's plan for it:
// deploy/plans/example-xxh64.json.
#define XXH_INLINE_ALL
#include <xxhash.h>

unsigned char input[1 << 20];
unsigned char digest[8];

// Returns the low 32 bits of the hash; `digest` holds all 64, big-endian (as xxhsum prints them).
__attribute__((export_name("xxh64")))
unsigned int xxh64(unsigned int length) {
  XXH64_hash_t hash = XXH64(input, length, 0);
  XXH64_canonicalFromHash((XXH64_canonical_t *)digest, hash);
  return (unsigned int)hash;
}
