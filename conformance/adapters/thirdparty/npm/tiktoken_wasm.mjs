// tiktoken (npm, the WebAssembly build of OpenAI's Rust tiktoken) behind the protocol, profile
// tiktoken (encode-only). load(rules) builds `new Tiktoken(bpe, {}, '[\\s\\S]+')` from its lite entry
// point, where bpe is a .tiktoken rank file of our rules (each byte at its own value, rule r at
// 256 + r) and the pattern keeps the whole text as one piece, so nothing is pre-tokenized. Its ids
// are its ranks, which are already ours. decode() returns the library's bytes as text made with
// TextDecoder's default replacement (U+FFFD for invalid UTF-8, as tiktoken's Python decode does):
// the bytes-to-text step is the adapter's, so it follows the declared profile and decides no verdict.
// The ids go to the library as given (it converts them to u32 itself).
//
//   node conformance/adapters/thirdparty/npm/tiktoken_wasm.mjs

import { Tiktoken } from 'tiktoken/lite';

import { tiktokenFile } from './ranks.mjs';
import { packageVersion, serve } from './serve.mjs';

const text = new TextDecoder('utf-8', { ignoreBOM: true });

function tokenizer(rules, previous) {
  const encoding = new Tiktoken(tiktokenFile(rules), {}, '[\\s\\S]+');
  previous?.free();
  return encoding;
}

serve({
  name: 'tiktoken-wasm',
  version: packageVersion('tiktoken'),
  profile: 'tiktoken',
  capabilities: ['load', 'encode', 'decode'],
  operations: {
    reset: () => tokenizer([]),
    load: (rules, previous) => tokenizer(rules, previous),
    encode: (value, encoding) => encoding.encode(value),
    decode: (ids, encoding) => text.decode(encoding.decode(ids)),
  },
});
