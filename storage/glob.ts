/**
 * Glob matching for names (index patterns in `from`, field patterns in `keep` and `drop`): `*` is
 * any run of characters, `?` one character, everything else literal, over the whole name. A
 * backtracking regex takes exponential time on patterns like `*a*a*a*a*b`; this matcher goes
 * back only to the last `*`, so it takes at most O(pattern x name) steps whatever the input.
 */

export function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  // Where the last `*` was, and the name position its run of characters currently ends at.
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const c = pattern[p];
    if (c === '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.length && (c === '?' || c === name[n])) {
      p++;
      n++;
    } else if (star !== -1) {
      // Let the last `*` take one more character and try the rest of the pattern again.
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether a pattern has wildcards at all (a plain name compares with ===). */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}
