// jsmn, the minimal JSON tokenizer, from the jsmn.h that Debian's libjsmn-dev installs (the
// whole library as one header), compiled to wasm32 by examples/build.sh. The glue is the only
// code here: a buffer the host writes JSON text into, the token array jsmn fills, and exported
// functions to tokenize `length` bytes and to say how many token bytes were written.
// benchfleet's plan for it: deploy/plans/example-jsmn.json.
#include <jsmn.h>

char input[1 << 20];
jsmntok_t tokens[16384];
static int written;

// Returns the number of tokens, or jsmn's negative error code (JSMN_ERROR_INVAL, _PART, _NOMEM).
__attribute__((export_name("tokenize")))
int tokenize(unsigned int length) {
  jsmn_parser parser;
  jsmn_init(&parser);
  int count = jsmn_parse(&parser, input, length, tokens, sizeof tokens / sizeof tokens[0]);
  written = count > 0 ? count * (int)sizeof(jsmntok_t) : 0;
  return count;
}

// Bytes of `tokens` the last call filled: each token is type, start, end and size, four i32s.
__attribute__((export_name("token_bytes")))
int token_bytes(void) {
  return written;
}
