/**
 * The events a tail would send twice: live events acknowledged while its catchup query ran may be
 * in the catchup's answer too. Those that arrived before the catchup ended are compared with the
 * catchup's events by content (every field), and each catchup event stands for one live copy.
 */
import type { Row } from '../../query/exec/rows';

/** A row's content whatever the order of its fields. */
function contentKey(row: Row): string {
  return JSON.stringify(
    Object.keys(row)
      .sort()
      .map((name) => [name, row[name]]),
  );
}

export class CatchupOverlap {
  private readonly counts = new Map<string, number>();

  constructor(catchup: readonly Row[]) {
    for (const row of catchup) {
      const key = contentKey(row);
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    }
  }

  /** Live rows with those the catchup sent already taken out, in their order. */
  withoutSent(live: readonly Row[]): Row[] {
    if (this.counts.size === 0) return [...live];
    return live.filter((row) => {
      const key = contentKey(row);
      const left = this.counts.get(key) ?? 0;
      if (left === 0) return true;
      this.counts.set(key, left - 1);
      return false;
    });
  }
}
