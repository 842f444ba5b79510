/**
 * The live tail sessions of this node: how many may run (`tail.max_sessions`), the ingest bus
 * they listen to, and the counters `GET /status` reports in its `tail` section.
 */
import { ApiError } from '../core/errors';
import { IngestBus } from './ingest-bus';
import { localSource, type LiveSourceFactory } from './live-source';
import { TailSession, type TailSessionOptions } from './tail-session';

export interface TailStatus {
  active_sessions: number;
  /** Listeners of this node's ingest: its own sessions and the other members' subscriptions. */
  subscriber_count: number;
  /** Live results dropped by this node's sessions since it started. */
  total_dropped_events: number;
}

export class TailSessions {
  readonly bus: IngestBus;
  /** In a cluster, the other members' ingest (node/cluster/tail-feeds.ts); null for a node alone. */
  remoteSource: LiveSourceFactory | null = null;
  private readonly sessions = new Set<TailSession>();
  private droppedByEnded = 0;

  constructor(onListenerError: (error: Error) => void) {
    this.bus = new IngestBus(onListenerError);
  }

  /**
   * A new session listening to every source, or 429 TOO_MANY_REQUESTS when `maxSessions` run.
   * It counts at once, so sessions opened together cannot pass the limit.
   */
  open(maxSessions: number, options: Omit<TailSessionOptions, 'sources' | 'onEnd'>): TailSession {
    if (this.sessions.size >= maxSessions) {
      throw new ApiError(
        'TOO_MANY_REQUESTS',
        `${this.sessions.size} live tail sessions are open on this node (tail.max_sessions = ${maxSessions}); close one or retry later`,
      );
    }
    const sources = [localSource(this.bus), ...(this.remoteSource === null ? [] : [this.remoteSource])];
    const session = new TailSession({
      ...options,
      sources,
      onEnd: (ended) => {
        if (this.sessions.delete(ended)) this.droppedByEnded += ended.dropped;
      },
    });
    this.sessions.add(session);
    return session;
  }

  status(): TailStatus {
    let dropped = this.droppedByEnded;
    for (const session of this.sessions) dropped += session.dropped;
    return { active_sessions: this.sessions.size, subscriber_count: this.bus.subscriberCount, total_dropped_events: dropped };
  }

  /** Ends every session (the server stops). */
  closeAll(): void {
    for (const session of [...this.sessions]) session.end();
  }
}
