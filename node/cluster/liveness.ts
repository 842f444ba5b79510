/**
 * Failure detection: a member is up while it has been heard from (its heartbeat reached us, or it
 * answered ours) within the failure timeout, and down after. Changes are reported once each way.
 */
import type { NodeStats } from './node-stats';

export interface Liveness {
  up: boolean;
  /** When it was last heard from (ms since the epoch), null if never since this node started. */
  lastHeartbeatMs: number | null;
  /** The counts its last heartbeat reply carried, null if none yet. */
  stats: NodeStats | null;
}

interface Heard {
  lastMs: number;
  stats: NodeStats | null;
  reportedUp: boolean;
}

export class LivenessTracker {
  private readonly heardFrom = new Map<string, Heard>();

  constructor(
    private readonly failureTimeoutMs: number,
    private readonly onChange: (id: string, up: boolean) => void,
  ) {}

  /** `id` was heard from at `nowMs`; `stats` when its reply carried them. */
  heard(id: string, nowMs: number, stats?: NodeStats): void {
    const known = this.heardFrom.get(id);
    if (known === undefined) {
      this.heardFrom.set(id, { lastMs: nowMs, stats: stats ?? null, reportedUp: true });
      this.onChange(id, true);
      return;
    }
    known.lastMs = Math.max(known.lastMs, nowMs);
    if (stats !== undefined) known.stats = stats;
    if (!known.reportedUp) {
      known.reportedUp = true;
      this.onChange(id, true);
    }
  }

  /** Reports the members whose silence has passed the failure timeout. */
  sweep(nowMs: number): void {
    for (const [id, known] of this.heardFrom) {
      if (known.reportedUp && !this.isUp(known, nowMs)) {
        known.reportedUp = false;
        this.onChange(id, false);
      }
    }
  }

  of(id: string, nowMs: number): Liveness {
    const known = this.heardFrom.get(id);
    if (known === undefined) return { up: false, lastHeartbeatMs: null, stats: null };
    return { up: this.isUp(known, nowMs), lastHeartbeatMs: known.lastMs, stats: known.stats };
  }

  /** Forgets nodes that are no longer members. */
  retain(ids: ReadonlySet<string>): void {
    for (const id of this.heardFrom.keys()) if (!ids.has(id)) this.heardFrom.delete(id);
  }

  private isUp(known: Heard, nowMs: number): boolean {
    return nowMs - known.lastMs <= this.failureTimeoutMs;
  }
}
