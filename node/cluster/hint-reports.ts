/**
 * Which nodes hold hints for which: every node names the targets of its hints in each heartbeat
 * it sends (HeartbeatRequest.hints_for), and every node keeps the last list heard from each peer.
 * A returning owner is not asked for keys while any node holds hints for it, so a holder that went
 * down keeps its last list here: its hints are still pending until it says otherwise. A peer not
 * heard since this node started may hold hints nobody here knows of (catch-up.ts).
 */
export class HintReports {
  private readonly targetsByHolder = new Map<string, ReadonlySet<string>>();
  /** The peers heard at least once since this node started. */
  private readonly heard = new Set<string>();
  private readonly firstReportListeners = new Set<() => void>();

  /** `holder`'s latest list of hint targets. */
  report(holder: string, targets: readonly string[]): void {
    if (targets.length === 0) this.targetsByHolder.delete(holder);
    else this.targetsByHolder.set(holder, new Set(targets));
    if (this.heard.has(holder)) return;
    this.heard.add(holder);
    for (const listener of [...this.firstReportListeners]) listener();
  }

  /** Forgets who was heard: after this node stalled, what they said before may be stale (catch-up.ts). */
  forgetHeard(): void {
    this.heard.clear();
  }

  /** Whether `holder` reported since this node started. */
  hasReported(holder: string): boolean {
    return this.heard.has(holder);
  }

  /** Calls `listener` each time a peer reports for the first time; returns the call that stops it. */
  onFirstReport(listener: () => void): () => void {
    this.firstReportListeners.add(listener);
    return () => this.firstReportListeners.delete(listener);
  }

  /** The peers heard holding hints for `target`, sorted. */
  holdersOf(target: string): string[] {
    const holders: string[] = [];
    for (const [holder, targets] of this.targetsByHolder) if (targets.has(target)) holders.push(holder);
    return holders.sort();
  }

  /** Every target some peer was heard holding hints for. */
  targets(): Set<string> {
    const all = new Set<string>();
    for (const targets of this.targetsByHolder.values()) for (const target of targets) all.add(target);
    return all;
  }

  /** Forgets holders that are no longer members. */
  retain(members: ReadonlySet<string>): void {
    for (const holder of this.targetsByHolder.keys()) if (!members.has(holder)) this.targetsByHolder.delete(holder);
    for (const holder of this.heard) if (!members.has(holder)) this.heard.delete(holder);
  }
}
