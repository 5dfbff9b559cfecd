// tiktoken (npm, the WebAssembly build of OpenAI's Rust tiktoken) in production configuration
// (specs/protocol.md 3.4), encode-only, on the encoding it ships, declared as the handshake's vocabulary:
//
//   node tiktoken_wasm_production.mjs cl100k_base
//
// encode(text) is encode_ordinary (special-token text is ordinary text, as the contract's encode asks).
// decode returns the library's bytes as text, invalid UTF-8 as U+FFFD (tiktoken's Python decode); that
// step is the adapter's, so it decides no verdict on the library. The ids go to the library as given (it
// converts them to u32 itself, as tiktoken_wasm.mjs notes).

import { get_encoding } from 'tiktoken';

import { PROFILES, encodingArgument, textOf } from './production.mjs';
import { packageVersion, serve } from './serve.mjs';

const encoding = encodingArgument('tiktoken_wasm_production.mjs', ['gpt2', 'r50k_base', 'cl100k_base', 'o200k_base']);
const tokenizer = get_encoding(encoding);

serve({
  name: `tiktoken-wasm ${encoding}`,
  version: packageVersion('tiktoken'),
  profile: PROFILES[encoding],
  capabilities: ['encode', 'decode'],
  vocabulary: encoding,
  operations: {
    reset: () => null,
    encode: (text) => tokenizer.encode_ordinary(text),
    decode: (ids) => textOf(tokenizer.decode(ids)),
  },
});
