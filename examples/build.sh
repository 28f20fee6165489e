#!/usr/bin/env bash
# Builds the example modules from their C sources with Debian's clang, lld and wasi-libc
# (apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32 libxxhash-dev libjsmn-dev):
# examples/xxhash/xxh64.wasm and examples/jsmn/tokenize.wasm. Their SHA-256s are pinned in
# deploy/plans/example-*.json; test/kernels/example-modules.test.ts rebuilds them and checks.
# Usage: examples/build.sh [OUTDIR]   (default: next to each source)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# clang runs wasm-opt after linking when it finds one on PATH (npm puts binaryen's, from
# assemblyscript, there under `npm test`; Debian's binaryen would put one in /usr/bin), and the
# bytes then differ from the pinned ones: so clang runs with a PATH of only its linker.
clang_bin="$(command -v clang)"
linker="$(command -v wasm-ld-14 || command -v wasm-ld)"
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
ln -s "$linker" "$tools/wasm-ld-14"
ln -s "$linker" "$tools/wasm-ld"
out="${1:-}"
build() { # source, output name, exports...
  local src="$1" name="$2"
  shift 2
  local dest="${out:-$(dirname "$src")}/$name"
  local flags=()
  for sym in "$@"; do flags+=("-Wl,--export=$sym"); done
  PATH="$tools" "$clang_bin" --target=wasm32-wasi --sysroot=/usr -O2 -nostartfiles -Wl,--no-entry -Wl,--strip-all "${flags[@]}" -o "$dest" "$src"
}
build "$here/xxhash/xxh64.c" xxh64.wasm input digest
build "$here/jsmn/tokenize.c" tokenize.wasm input tokens
