// gpt-tokenizer (npm, pure JavaScript) behind the protocol, profile tiktoken (encode-only).
// load(rules) builds the library's engine, `new BytePairEncodingCore({ bytePairRankDecoder,
// tokenSplitRegex })` (the class every gpt-tokenizer encoding runs on, exported as
// gpt-tokenizer/BytePairEncodingCore), where bytePairRankDecoder lists each rank's piece in the
// library's own data format (the text where the bytes are valid UTF-8, else the array of bytes; each
// byte at its own value, rule r at 256 + r) and tokenSplitRegex /[\s\S]+/gu keeps the whole text as one
// piece, so nothing is pre-tokenized. encode is encodeNative, decode is decodeNative; its ids are
// its ranks, which are already ours.
//
//   node conformance/adapters/thirdparty/npm/gpt_tokenizer.mjs

import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore';

import { rankTable } from './ranks.mjs';
import { packageVersion, serve } from './serve.mjs';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function asText(piece) {
  try {
    return utf8.decode(piece);
  } catch {
    return Array.from(piece);
  }
}

function tokenizer(rules) {
  const bytePairRankDecoder = rankTable(rules).map(([piece]) => asText(piece));
  return new BytePairEncodingCore({ bytePairRankDecoder, tokenSplitRegex: /[\s\S]+/gu });
}

serve({
  name: 'gpt-tokenizer',
  version: packageVersion('gpt-tokenizer'),
  profile: 'tiktoken',
  capabilities: ['load', 'encode', 'decode'],
  operations: {
    reset: () => tokenizer([]),
    load: (rules) => tokenizer(rules),
    encode: (value, core) => core.encodeNative(value),
    decode: (ids, core) => core.decodeNative(ids),
  },
});
