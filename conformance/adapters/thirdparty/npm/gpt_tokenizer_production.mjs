// gpt-tokenizer (npm, pure JavaScript) in production configuration (specs/protocol.md 3.4), encode-only,
// on the encoding it has built in, declared as the handshake's vocabulary:
//
//   node gpt_tokenizer_production.mjs cl100k_base
//
// encode(text) is `encode(text, { disallowedSpecial: new Set() })`: no special token is allowed (the
// default) and none is refused, so special-token text is ordinary text, as the contract's encode asks.
// decode is the library's.

import { PROFILES, encodingArgument } from './production.mjs';
import { packageVersion, serve } from './serve.mjs';

const encoding = encodingArgument('gpt_tokenizer_production.mjs', ['r50k_base', 'cl100k_base', 'o200k_base']);
const api = await import(`gpt-tokenizer/encoding/${encoding}`);
const ordinary = { disallowedSpecial: new Set() };

serve({
  name: `gpt-tokenizer ${encoding}`,
  version: packageVersion('gpt-tokenizer'),
  profile: PROFILES[encoding],
  capabilities: ['encode', 'decode'],
  vocabulary: encoding,
  operations: {
    reset: () => null,
    encode: (text) => api.encode(text, ordinary),
    decode: (ids) => api.decode(ids),
  },
});
