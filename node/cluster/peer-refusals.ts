/**
 * The refusals this node gives peers' calls: each counted by method and reason, and logged once per
 * sender and reason, so a peer that keeps sending the same bad message does not flood the log.
 * A refusal that only asks to come back later (UNAVAILABLE: starting, a member still up) is counted
 * but not logged.
 */
import { status } from '@grpc/grpc-js';
import type { Logger } from '../core/logger';
import { quoted } from './cluster-state';
import type { RpcRefusal } from './grpc/server';

/** Distinct (sender, reason) pairs logged at most: a flood of made-up senders stops being logged there. */
const MAX_LOGGED = 1000;

export type RefusalObserver = (method: string, reason: string) => void;

export class PeerRefusals {
  private readonly logged = new Set<string>();
  private readonly observers: RefusalObserver[] = [];

  constructor(private readonly logger: Logger) {}

  /** Calls `observer` for every refusal from now on (the metrics). */
  observe(observer: RefusalObserver): void {
    this.observers.push(observer);
  }

  /** Notes that `method` from `sender` (as the request names it) was refused. */
  refused(method: string, sender: string, refusal: RpcRefusal): void {
    for (const observer of this.observers) observer(method, refusal.reason);
    if (refusal.code === status.UNAVAILABLE) return;
    // Cut short: a sender's name is whatever it sent, a megabyte if it likes.
    const name = quoted(sender);
    const key = `${name} ${refusal.reason}`;
    if (this.logged.has(key) || this.logged.size >= MAX_LOGGED) return;
    this.logged.add(key);
    this.logger.warn(
      `cluster: refused ${method} from ${name} (${refusal.reason}): ${refusal.message}; further ones from it for this reason are only counted`,
    );
  }
}
