/**
 * The token rule shared by the segment bloom filter and the query engine (`search`, `has`).
 *
 * A token is a maximal run of token characters: ASCII letters, digits and `_`, plus every
 * UTF-16 code unit >= 128 (so accented words, CJK text and emoji, including both halves of a
 * surrogate pair, stay inside tokens). Tokens are lower-cased with `String.prototype.toLowerCase`
 * (for ASCII-only tokens that is just A-Z -> a-z).
 *
 *   "GET /api/v1/users?id=42 HTTP/1.1" -> get, api, v1, users, id, 42, http, 1, 1
 *   "host=web-01"                      -> host, web, 01
 *
 * The bloom builder (bloom.ts) hashes tokens inline with the same rule; a test checks that both
 * agree. Changing the rule invalidates every stored bloom filter, so don't.
 */

/** TOKEN_ASCII[c] === 1 when the ASCII code c is a token character. */
export const TOKEN_ASCII: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) t[c] = 1; // 0-9
  for (let c = 65; c <= 90; c++) t[c] = 1; // A-Z
  for (let c = 97; c <= 122; c++) t[c] = 1; // a-z
  t[95] = 1; // _
  return t;
})();

/** For a byte/code unit below 256: its lower-cased code when it is an ASCII token character, else 0. */
export const TOKEN_LOWER: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (let c = 0; c < 128; c++) if (TOKEN_ASCII[c] === 1) t[c] = c >= 65 && c <= 90 ? c + 32 : c;
  return t;
})();

/** True when the UTF-16 code unit belongs inside a token. */
export function isTokenCode(code: number): boolean {
  return code >= 128 || TOKEN_ASCII[code] === 1;
}

/** Calls `cb` with every token of `text`, lower-cased, in order (duplicates included). */
export function forEachToken(text: string, cb: (token: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c < 128 && TOKEN_ASCII[c] === 0) {
      i++;
      continue;
    }
    const start = i;
    // Tracks whether the token needs lower-casing at all, to skip toLowerCase on the common case.
    let lower = true;
    for (;;) {
      if (c >= 65 && c <= 90) lower = false;
      else if (c >= 128) lower = false;
      i++;
      if (i >= n) break;
      c = text.charCodeAt(i);
      if (c < 128 && TOKEN_ASCII[c] === 0) break;
    }
    const token = text.slice(start, i);
    cb(lower ? token : token.toLowerCase());
  }
}

/** The tokens of `text`, lower-cased, in order, duplicates included. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  forEachToken(text, (t) => out.push(t));
  return out;
}

/** The distinct tokens of `text`, lower-cased, in first-seen order. */
export function distinctTokens(text: string): string[] {
  const seen = new Set<string>();
  forEachToken(text, (t) => seen.add(t));
  return [...seen];
}
