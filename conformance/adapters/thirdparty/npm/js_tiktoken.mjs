// js-tiktoken (npm, pure JavaScript port of tiktoken) behind the protocol, profile tiktoken
// (encode-only). load(rules) builds `new Tiktoken({ bpe_ranks, special_tokens: {}, pat_str })` from
// our rules: bpe_ranks in the library's own format (one "! <rank> <base64 piece>" line per token,
// each byte at its own value, rule r at 256 + r) and the pattern [\s\S]+, which keeps the whole
// text as one piece, so nothing is pre-tokenized. Its ids are its ranks, which are already ours.
//
//   node conformance/adapters/thirdparty/npm/js_tiktoken.mjs

import { Tiktoken } from 'js-tiktoken/lite';

import { rankTable } from './ranks.mjs';
import { packageVersion, serve } from './serve.mjs';

function tokenizer(rules) {
  const bpe_ranks = rankTable(rules).map(([piece, rank]) => `! ${rank} ${Buffer.from(piece).toString('base64')}`).join('\n');
  return new Tiktoken({ bpe_ranks, special_tokens: {}, pat_str: '[\\s\\S]+' });
}

serve({
  name: 'js-tiktoken',
  version: packageVersion('js-tiktoken'),
  profile: 'tiktoken',
  capabilities: ['load', 'encode', 'decode'],
  operations: {
    reset: () => tokenizer([]),
    load: (rules) => tokenizer(rules),
    encode: (text, encoding) => encoding.encode(text),
    decode: (ids, encoding) => encoding.decode(ids),
  },
});
