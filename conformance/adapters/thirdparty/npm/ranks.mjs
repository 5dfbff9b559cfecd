// Our rules as the piece -> rank table the tiktoken family loads: each byte at its own value,
// rule r's piece (the bytes of its two parts) at 256 + r. Building pieces needs rules that refer
// to bytes or earlier rules, so those are checked here as the Python adapters check them
// (conformance/adapters/thirdparty/pieces.py): a TypeError for a wrong shape or type, a ValueError
// for an id out of reach. Two rules with the same piece cannot share one rank table.

import { ContractError, JsonFloat } from './serve.mjs';

export const FIRST_RULE_ID = 256;

const typeError = (message) => new ContractError('TypeError', message);
const valueError = (message) => new ContractError('ValueError', message);

function checkPart(part, rank) {
  const id = FIRST_RULE_ID + rank;
  if (typeof part !== 'number' || !Number.isInteger(part)) {
    const shown = part instanceof JsonFloat ? `float ${part.text}` : JSON.stringify(part);
    throw typeError(`rule ${rank} refers to ${shown}, not an int`);
  }
  if (part < 0 || part >= id) {
    throw valueError(`rule ${rank} (id ${id}) refers to id ${part}: only bytes 0-255 or earlier rules`);
  }
  return part;
}

export function rulePieces(rules) {
  if (!Array.isArray(rules)) throw typeError(`rules must be a list of pairs, not ${typeof rules}`);
  const pieces = [];
  for (let value = 0; value < FIRST_RULE_ID; value += 1) pieces.push(Uint8Array.of(value));
  rules.forEach((rule, rank) => {
    if (!Array.isArray(rule)) throw typeError(`rule ${rank} must be a pair of ints, not ${JSON.stringify(rule)}`);
    if (rule.length !== 2) throw valueError(`rule ${rank} must be a pair of ints, got ${rule.length} items`);
    const [first, second] = rule.map((part) => pieces[checkPart(part, rank)]);
    const piece = new Uint8Array(first.length + second.length);
    piece.set(first);
    piece.set(second, first.length);
    pieces.push(piece);
  });
  return pieces;
}

// [piece, rank] for every byte and rule, in rank order.
export function rankTable(rules) {
  const pieces = rulePieces(rules);
  const seen = new Map();
  pieces.forEach((piece, rank) => {
    const key = Buffer.from(piece).toString('hex');
    if (seen.has(key)) throw valueError(`rules ${seen.get(key)} and ${rank} make the same piece ${key}; a rank table holds one`);
    seen.set(key, rank);
  });
  return pieces.map((piece, rank) => [piece, rank]);
}

// The .tiktoken file format: base64 of each piece and its rank, one per line.
export function tiktokenFile(rules) {
  return rankTable(rules).map(([piece, rank]) => `${Buffer.from(piece).toString('base64')} ${rank}`).join('\n');
}
