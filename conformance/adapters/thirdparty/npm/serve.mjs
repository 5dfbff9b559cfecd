// The bpe-conformance protocol (specs/protocol.md) for npm tokenizers: JSON lines on stdin and
// stdout, one request, one response. An adapter gives serve() its name, version, profile and the
// operations it maps onto the library; serve() only carries them across the pipe. Every error the
// library throws is reported under its own JavaScript name (TypeError, RangeError, Error, ...):
// nothing is renamed into the contract's families.
//
// Production configuration (specs/protocol.md 3.4): an adapter of an encoder bound to a released
// vocabulary either names the vocabulary it has built in (`vocabulary: 'cl100k_base'`, sent in the
// handshake, which the harness compares with the file), or gives `operations.loadVocabulary(pieces,
// specialTokens, state)`, which declares the capability load_vocabulary and receives every piece (a
// Buffer, in rank order) and the special tokens.

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const PROTOCOL = 1;

// JSON.parse reads 97.0 as 97, but a float is never a valid rule part while the contract tells them
// apart. So number tokens written with a fraction or exponent are tagged from the request's text
// (strings are matched first and left alone): rule parts keep the tag, so the rule mapping can refuse
// them (ranks.mjs); everything else gets the plain number a JavaScript caller would pass.
export class JsonFloat {
  constructor(text) {
    this.text = text;
  }
}
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const FLOAT_TAG = '\u0000float';

function parseLine(line) {
  const tagged = line.replace(TOKEN, (token) => (token[0] !== '"' && /[.eE]/.test(token) ? `{"\\u0000float":"${token}"}` : token));
  return JSON.parse(tagged, (key, value) =>
    value && typeof value === 'object' && !Array.isArray(value) && typeof value[FLOAT_TAG] === 'string'
      ? new JsonFloat(value[FLOAT_TAG])
      : value);
}

function plain(value) {
  if (value instanceof JsonFloat) return Number(value.text);
  return Array.isArray(value) ? value.map(plain) : value;
}

export class ContractError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

// The installed version of an npm package, from its own package.json beside these adapters.
export function packageVersion(name) {
  const manifest = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

export function serve({ name, version, profile, capabilities: algorithm, operations, vocabulary }) {
  const capabilities = operations.loadVocabulary ? [...algorithm, 'load_vocabulary'] : algorithm;
  let state = operations.reset();
  const handlers = {
    handshake(request) {
      if (request.protocol !== PROTOCOL) {
        throw new ContractError('ProtocolVersion', `${name} speaks protocol ${PROTOCOL}, not ${request.protocol}`);
      }
      const declared = { name, version, language: 'javascript', capabilities, profile, protocol: PROTOCOL };
      return vocabulary ? { ...declared, vocabulary } : declared;
    },
    load_vocabulary(request) {
      if (!Array.isArray(request.pieces)) throw new ContractError('TypeError', 'pieces must be a list of base64 strings');
      const pieces = request.pieces.map((piece) => Buffer.from(piece, 'base64'));
      state = operations.loadVocabulary(pieces, request.special_tokens, state);
      return null;
    },
    load(request) {
      state = operations.load(request.rules, state);
      return null;
    },
    encode: (request) => Array.from(operations.encode(plain(request.text), state)),
    decode: (request) => operations.decode(plain(request.ids), state),
    reset() {
      state = operations.reset();
      return null;
    },
    stop: () => null,
  };
  const reply = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    let request;
    try {
      request = parseLine(line);
    } catch (error) {
      reply({ id: null, ok: false, error: { type: 'ProtocolError', message: `not JSON: ${error.message}` } });
      return;
    }
    const id = Number.isInteger(request?.id) ? request.id : null;
    const op = request?.op;
    const declared = ['handshake', 'reset', 'stop', ...capabilities].includes(op);
    try {
      if (!declared || !Object.hasOwn(handlers, op)) {
        throw new ContractError('NotImplemented', `unknown op ${JSON.stringify(op)}`);
      }
      reply({ id, ok: true, result: handlers[op](request) });
    } catch (error) {
      const type = error instanceof ContractError ? error.type : (error?.name ?? 'Error');
      reply({ id, ok: false, error: { type, message: String(error?.message ?? error) } });
    }
    if (op === 'stop') process.exit(0);
  });
  lines.on('close', () => process.exit(0));
}
