/**
 * The writers' own record: every batch, every attempt to post it and how it ended, and the running
 * count of acknowledged events that a query started at a given moment must at least see.
 */

/**
 * How an attempt ended. `acknowledged`: 200 with every event accepted (stored exactly once on each
 * owner). `refused`: 429 or 503, or the connection was refused: nothing stored. `lost`: the answer
 * never came (a kill, a reset), or an answer no shipper expects (a 500): any part may be stored.
 */
export type AttemptOutcome = 'acknowledged' | 'refused' | 'lost';

export interface Attempt {
  node: string;
  /** performance.now() when the request was sent and when its outcome was known. */
  startedMs: number;
  endedMs: number;
  outcome: AttemptOutcome;
  /** The status and error code, or the connection error. */
  detail: string;
}

export interface Batch {
  /** `w<writer>.<seq>`: every event of the batch carries it in `batch`, and `<batch>.<n>` in `id`. */
  id: string;
  writer: string;
  size: number;
  attempts: Attempt[];
}

export class Ledger {
  readonly batches = new Map<string, Batch>();
  /** Events of acknowledged batches, in all and by writer, as of now. */
  private acked = 0;
  private readonly ackedByWriter = new Map<string, number>();
  /** Answers no shipper expects (a 400, a 500, a 200 that refused events): each one a failure. */
  readonly unexpected: string[] = [];

  open(id: string, writer: string, size: number): Batch {
    const batch: Batch = { id, writer, size, attempts: [] };
    this.batches.set(id, batch);
    if (!this.ackedByWriter.has(writer)) this.ackedByWriter.set(writer, 0);
    return batch;
  }

  record(batch: Batch, attempt: Attempt): void {
    batch.attempts.push(attempt);
    if (attempt.outcome !== 'acknowledged') return;
    this.acked += batch.size;
    this.ackedByWriter.set(batch.writer, this.ackedByWriter.get(batch.writer)! + batch.size);
  }

  ackedEvents(): number {
    return this.acked;
  }

  ackedEventsByWriter(): Map<string, number> {
    return new Map(this.ackedByWriter);
  }

  /**
   * The most events the cluster can hold from attempts sent before `ms`: every attempt that was
   * acknowledged or whose outcome is unknown stores each of its events at most once (a refused one
   * stores nothing), so a query answered at `ms` counting more has counted something twice.
   */
  mostStoredBefore(ms: number, writer?: string): number {
    let most = 0;
    for (const batch of this.batches.values()) {
      if (writer !== undefined && batch.writer !== writer) continue;
      for (const attempt of batch.attempts) if (attempt.startedMs < ms && attempt.outcome !== 'refused') most += batch.size;
    }
    return most;
  }
}

/** Whether the batch was acknowledged (1) or not (0), and how many of its attempts had an unknown outcome. */
export function batchStanding(batch: Batch): { acknowledged: number; lost: number } {
  return {
    acknowledged: batch.attempts.some((attempt) => attempt.outcome === 'acknowledged') ? 1 : 0,
    lost: batch.attempts.filter((attempt) => attempt.outcome === 'lost').length,
  };
}
