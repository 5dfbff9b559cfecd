// js-tiktoken (npm, pure JavaScript port of tiktoken) in production configuration (specs/protocol.md
// 3.4), encode-only. Two ways to run it:
//
//   node js_tiktoken_production.mjs cl100k_base      the ranks js-tiktoken ships (js-tiktoken/ranks/*),
//                                                    declared as the handshake's built-in vocabulary
//   node js_tiktoken_production.mjs --load cl100k    the capability load_vocabulary: the harness sends
//                                                    the pieces and specials, run under the split pattern
//                                                    js-tiktoken ships for that profile's encoding
//
// encode(text) is `encode(text, [], [])`: no special token is allowed or disallowed, so special-token
// text is ordinary text, as the contract's encode asks. decode is the library's.

import { Tiktoken } from 'js-tiktoken/lite';

import { PROFILES, encodingArgument } from './production.mjs';
import { packageVersion, serve } from './serve.mjs';

const SHIPPED = ['gpt2', 'r50k_base', 'cl100k_base', 'o200k_base'];
const ENCODING_OF = { gpt2: 'r50k_base', cl100k: 'cl100k_base', o200k: 'o200k_base' };

async function shipped(encoding) {
  return (await import(`js-tiktoken/ranks/${encoding}`)).default;
}

// js-tiktoken's own rank format: "! <first rank> <base64 piece> <base64 piece> ...".
function bpeRanks(pieces) {
  return `! 0 ${pieces.map((piece) => piece.toString('base64')).join(' ')}`;
}

const loading = process.argv[2] === '--load';
const encoding = loading
  ? ENCODING_OF[process.argv[3]] ?? encodingArgument('js_tiktoken_production.mjs --load', Object.keys(ENCODING_OF))
  : encodingArgument('js_tiktoken_production.mjs', SHIPPED);
const ranks = await shipped(encoding);
const operations = {
  reset: () => (loading ? null : new Tiktoken(ranks)),
  encode(text, tokenizer) {
    if (tokenizer === null) throw new Error('no vocabulary loaded');
    return tokenizer.encode(text, [], []);
  },
  decode(ids, tokenizer) {
    if (tokenizer === null) throw new Error('no vocabulary loaded');
    return tokenizer.decode(ids);
  },
};
if (loading) {
  operations.loadVocabulary = (pieces, specialTokens) =>
    new Tiktoken({ pat_str: ranks.pat_str, special_tokens: specialTokens, bpe_ranks: bpeRanks(pieces) });
}

serve({
  name: loading ? 'js-tiktoken (loaded vocabulary)' : `js-tiktoken ${encoding}`,
  version: packageVersion('js-tiktoken'),
  profile: PROFILES[encoding],
  capabilities: ['encode', 'decode'],
  operations,
  vocabulary: loading ? undefined : encoding,
});
