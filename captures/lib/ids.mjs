// Deterministic ids: the same scenario step gets the same tool-call and message
// ids on every run, so captures differ between runs only where the CLI itself
// draws random ids or reads the clock.
import { createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base-62 characters derived from `seed`. */
function base62(seed, length) {
  const digest = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < length; i++) out += ALPHABET[digest[i % digest.length] % 62];
  return out;
}

/** An id shaped like the API's own: `toolu_01…`, `msg_01…`, `call_…`. */
export function idFor(prefix, seed, length = 24) {
  return `${prefix}${base62(`${prefix}|${seed}`, length)}`;
}
