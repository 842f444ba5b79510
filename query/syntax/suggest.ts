// "Did you mean" helpers: the nearest known name by edit distance, or a table's hint.

/** The hint a table gives for a name, own entries only (`constructor` is no hint). */
export function hintFor(table: Readonly<Record<string, string>>, name: string): string | null {
  return Object.prototype.hasOwnProperty.call(table, name) ? table[name]! : null;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (`whree` -> `where`). */
export function editDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  let prev2: number[] = new Array<number>(m + 1).fill(0);
  let prev: number[] = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur: number[] = new Array<number>(m + 1).fill(0);
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[m]!;
}

/**
 * The candidate nearest to `word` (case-insensitive), or null when none is close enough to be a
 * plausible typo (more than a third of the word, and at least 2 edits, away).
 */
export function nearest(word: string, candidates: Iterable<string>): string | null {
  const w = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.max(2, Math.ceil(w.length / 3));
  return bestDistance <= limit ? best : null;
}

/** A name in backticks (the way to write any name), when it can be written so; else how. */
export function inBackticks(name: string): string {
  return /[`\n]/.test(name) || name.length > 200 ? 'a field name, in backticks when it has other characters: `name`' : `\`${name}\``;
}
