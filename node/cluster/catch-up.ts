/**
 * When a node may be asked for its keys (docs/architecture.md, "Hints"). A node that missed
 * writes holds less than its keys until they are replayed to it, and their hints may be on any
 * member, which names their targets in each heartbeat (hint-reports.ts). So a node is asked for
 * keys only while no hints are pending for it, and only once this node has heard, since it
 * started, the report of every other member that could hold them: what it has not heard it cannot
 * know. A member that is down and was not heard within cluster.failure_timeout of the start
 * (membership's: from then on peers can reach this node and it knows the members) counts as down
 * for good; one that is up will report within a heartbeat, and is waited for. The same
 * rule holds for this node itself: from its start until it has heard every live member's report
 * and none names it, it is catching up and answers for none of its keys.
 */
import type { HintStore } from './hints';
import type { Membership } from './membership';

export interface CatchUpOptions {
  self: string;
  hints: Pick<HintStore, 'pending'>;
  membership: Pick<Membership, 'state' | 'livenessOf' | 'hintReports'>;
  failureTimeoutMs: number;
  /**
   * cluster.write_timeout: a node that stalled longer than this (stopped, swapping) may have had
   * writes hinted meanwhile, which the reports it heard before do not name.
   */
  stallMs: number;
}

export class CatchUp {
  /** When membership started (ms since the epoch), null before. */
  private startedAtMs: number | null = null;

  constructor(private readonly options: CatchUpOptions) {}

  private stallTimer: NodeJS.Timeout | null = null;

  /** Membership started: peers reach this node, and it knows the members. */
  started(nowMs = Date.now()): void {
    this.startedAtMs = nowMs;
  }

  /**
   * Watches this node's own event loop every `intervalMs`: after a stall longer than `stallMs` it
   * catches up as after a start, since the others may have kept hints for it meanwhile. An overdue
   * timer runs before the requests that waited, so no query is answered from the stale reports.
   */
  watchStalls(intervalMs: number): void {
    let last = Date.now();
    this.stallTimer = setInterval(() => {
      const now = Date.now();
      if (now - last > this.options.stallMs + intervalMs) {
        this.options.membership.hintReports.forgetHeard();
        this.started(now);
      }
      last = now;
    }, intervalMs);
    this.stallTimer.unref();
  }

  close(): void {
    if (this.stallTimer !== null) clearInterval(this.stallTimer);
    this.stallTimer = null;
  }

  /**
   * Whether hints for `node` are pending: true while this node holds hints for it, or any peer
   * named it in its last report (a holder that went down still holds them), unless that holder
   * is down and was removed: an operator who removes a dead node gives up what it held, so its
   * hints no longer keep their targets from answering.
   */
  hintsPendingFor(node: string): boolean {
    const { hints, membership } = this.options;
    if (hints.pending(node) > 0) return true;
    const { removed } = membership.state();
    return membership.hintReports.holdersOf(node).some((holder) => !removed.includes(holder) || membership.livenessOf(holder).up);
  }

  /**
   * Whether this node has heard, since it started, every member that could hold hints for `node`
   * (any but `node` and this one), but those that count as down.
   */
  reportsHeardFor(node: string, nowMs = Date.now()): boolean {
    const { self, membership, failureTimeoutMs } = this.options;
    if (this.startedAtMs === null) return false;
    const downCounts = nowMs - this.startedAtMs >= failureTimeoutMs;
    return membership
      .state()
      .members.every(
        ({ id }) => id === self || id === node || membership.hintReports.hasReported(id) || (downCounts && !membership.livenessOf(id).up),
      );
  }

  /** Whether `node` may be asked for its keys, as far as hints go (whether it is up is the caller's). */
  mayAsk(node: string): boolean {
    return this.reportsHeardFor(node) && !this.hintsPendingFor(node);
  }

  /** Why this node answers for none of its keys now; null once it caught up. */
  catchingUp(): string | null {
    const { self, membership } = this.options;
    if (!this.reportsHeardFor(self)) return `node ${self} has not yet heard every member's hint report since it started`;
    if (!this.hintsPendingFor(self)) return null;
    return `writes node ${self} missed are still being replayed to it (held by ${membership.hintReports.holdersOf(self).join(', ')})`;
  }

  /**
   * Waits until this node has heard every other member's report since it started, for at most
   * `maxWaitMs` or until `signal` aborts: a query right after a start waits a moment for them
   * rather than answering partial. Past the failure timeout after the start it does not wait: a
   * member up that still has not reported would otherwise slow every query.
   */
  async reportsHeard(maxWaitMs: number, signal: AbortSignal): Promise<void> {
    const { self, membership, failureTimeoutMs } = this.options;
    const until = Math.min(Date.now() + maxWaitMs, (this.startedAtMs ?? Date.now()) + failureTimeoutMs);
    while (!this.reportsHeardFor(self) && !signal.aborted && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          stop();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, until - Date.now());
        const stop = membership.hintReports.onFirstReport(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
