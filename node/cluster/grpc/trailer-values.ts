/**
 * Trailer keys and values grpc-js takes. It throws on a string value with any character outside
 * printable ASCII (and on a key outside `[0-9a-z_.-]`, or one ending `-bin` with a string value):
 * thrown while a refusal is answered, the call was never answered and its caller waited out its
 * deadline. So every refusal's trailers pass through here: a character outside printable ASCII is
 * percent-encoded as its UTF-8 bytes (`café` is `caf%C3%A9`; a lone surrogate first becomes
 * U+FFFD, as in the status text), and a value is cut to MAX_TRAILER_VALUE_LENGTH characters.
 * A value that is already printable ASCII and short, as every reason and fact is today, is unchanged.
 */
import { wellFormed } from './status-details';

/**
 * Trailers travel in one HTTP/2 header block, which a peer bounds (Node's default is 64 KiB for the
 * whole block): a value longer than this is cut, so that a few of them always fit.
 */
export const MAX_TRAILER_VALUE_LENGTH = 8192;
const CUT_MARK = '...';

const NOT_PRINTABLE_ASCII = /[^ -~]/u;
const ILLEGAL_KEY_CHARACTER = /[^0-9a-z_.-]/g;

/** `value` in printable ASCII, at most MAX_TRAILER_VALUE_LENGTH characters, never cut inside an escape. */
export function trailerValue(value: string): string {
  let safe = '';
  for (const character of wellFormed(value)) {
    const piece = NOT_PRINTABLE_ASCII.test(character)
      ? [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
      : character;
    if (safe.length + piece.length > MAX_TRAILER_VALUE_LENGTH) return safe.slice(0, MAX_TRAILER_VALUE_LENGTH - CUT_MARK.length) + CUT_MARK;
    safe += piece;
  }
  return safe;
}

/** `key` lower-cased, each character a key may not hold as `_`; never `-bin`, which would want bytes. */
export function trailerKey(key: string): string {
  const safe = key.toLowerCase().replace(ILLEGAL_KEY_CHARACTER, '_');
  return safe.endsWith('-bin') ? `${safe}_` : safe;
}
