// What the production adapters (*_production.mjs) share: the released encoding named on the command
// line and the bpe-conformance production profile it is judged under (specs/profiles.md).

export const PROFILES = { r50k_base: 'gpt2', gpt2: 'gpt2', cl100k_base: 'cl100k', o200k_base: 'o200k' };

// The encoding named by the first argument, among `shipped` (those the library has built in); a usage
// error (one line, exit 2) otherwise, before the protocol starts.
export function encodingArgument(script, shipped) {
  const [name, ...rest] = process.argv.slice(2);
  if (!shipped.includes(name) || rest.length > 0) {
    process.stderr.write(`usage: node ${script} ENCODING (one of ${shipped.join(', ')})\n`);
    process.exit(2);
  }
  return name;
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

// Bytes as text the way tiktoken's Python decode makes it: invalid UTF-8 becomes U+FFFD, a leading
// U+FEFF is kept (TextDecoder drops it unless ignoreBOM). Used where a library decodes to bytes.
export function textOf(bytes) {
  try {
    return fatal.decode(bytes);
  } catch {
    return lenient.decode(bytes);
  }
}
