/**
 * A tail session's live events from the other members: one Tail.Subscribe stream to each live
 * member (this node's own ingest is the session's local source). Members that join later are
 * subscribed at the next check, a stream that ends is opened again once its member is up, and
 * closing the session cancels them all. The session's catchup waits until every member that was
 * up listens (or `cluster.failure_timeout` passed), so nothing acknowledged after the session
 * started is missed.
 */
import * as grpc from '@grpc/grpc-js';
import type { Row } from '../../query/exec/rows';
import { decodePlainRows } from '../../query/exec/shard-results';
import type { LiveHandlers, LiveQuery, LiveSource, LiveSourceFactory } from '../tail/live-source';
import type * as wire from './grpc/messages';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { TAIL } from './grpc/proto';
import { protocolVersion } from './grpc/wire';
import type { Membership } from './membership';

/** How long a member without the Tail service (an older release) is left alone before it is asked again. */
const UNIMPLEMENTED_RETRY_MS = 60_000;

export interface TailFeedsOptions {
  membership: Pick<Membership, 'members'>;
  peers: PeerClients;
  /** How often the members are checked for one to subscribe to (cluster.heartbeat_interval). */
  checkIntervalMs: () => number;
  /** How long a session's catchup waits for the members to listen (cluster.failure_timeout). */
  readyTimeoutMs: () => number;
}

interface Feed {
  call: grpc.ClientReadableStream<wire.TailEvents>;
  listening: boolean;
}

function isRows(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row));
}

class MemberFeeds implements LiveSource {
  readonly ready: Promise<void>;
  private readonly feeds = new Map<string, Feed>();
  /** Members whose stream ended, and when they may be asked again. */
  private readonly retryAt = new Map<string, number>();
  /** Members whose outage the client was told of (once an outage). */
  private readonly reported = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private onListening: (() => void) | null = null;

  constructor(
    private readonly options: TailFeedsOptions,
    private readonly query: LiveQuery,
    private readonly handlers: LiveHandlers,
  ) {
    this.check();
    this.timer = setInterval(() => this.check(), options.checkIntervalMs());
    this.timer.unref();
    this.ready = new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, options.readyTimeoutMs());
      timeout.unref();
      this.onListening = () => {
        if ([...this.feeds.values()].every((feed) => feed.listening)) {
          clearTimeout(timeout);
          this.onListening = null;
          resolve();
        }
      };
      this.onListening();
    });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const feed of this.feeds.values()) feed.call.cancel();
    this.feeds.clear();
  }

  private check(): void {
    if (this.closed) return;
    const now = Date.now();
    for (const view of this.options.membership.members()) {
      const id = view.member.id;
      if (view.self || view.removed) continue;
      const feed = this.feeds.get(id);
      if (!view.up) {
        // Its stream may not have noticed yet: a member seen down is asked again once it is up.
        if (feed !== undefined) this.lost(id, feed, 'it is down');
        continue;
      }
      if (feed === undefined && (this.retryAt.get(id) ?? 0) <= now) this.open(id, view.member.grpc);
    }
  }

  private open(id: string, address: string): void {
    const request: wire.TailSubscribeRequest = {
      protocol_version: protocolVersion(),
      text: this.query.text,
      now_micros: this.query.nowMicros,
    };
    const method = TAIL.Subscribe;
    const call = this.options.peers
      .client(address)
      .makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, request, {});
    const feed: Feed = { call, listening: false };
    this.feeds.set(id, feed);
    call.on('data', (message: wire.TailEvents) => this.received(id, feed, message));
    call.on('error', (error: grpc.ServiceError) => {
      if (error.code === grpc.status.CANCELLED && this.closed) return;
      const failure = PeerCallError.from(address, error);
      const unimplemented = error.code === grpc.status.UNIMPLEMENTED;
      this.lost(id, feed, unimplemented ? 'it runs a release without live tail' : failure.plainDetails, unimplemented);
    });
    call.on('end', () => this.lost(id, feed, 'it stopped streaming'));
  }

  private received(id: string, feed: Feed, message: wire.TailEvents): void {
    if (this.feeds.get(id) !== feed || this.closed) return;
    if (!feed.listening) {
      feed.listening = true;
      this.reported.delete(id);
      this.onListening?.();
    }
    if (message.dropped > 0) this.handlers.dropped(message.dropped);
    if (message.error !== '') this.handlers.problem('INTERNAL_ERROR', `node ${id}: ${message.error}`);
    if (message.rows.length === 0) return;
    let rows: unknown;
    try {
      rows = decodePlainRows(message.rows);
    } catch {
      rows = null;
    }
    if (!isRows(rows)) {
      feed.call.cancel();
      this.lost(id, feed, 'it sent rows that are not events');
      return;
    }
    if (rows.length > 0) this.handlers.rows(rows);
  }

  /** A member's stream is gone: asked again at a later check; the client hears of it once. */
  private lost(id: string, feed: Feed, why: string, olderRelease = false): void {
    if (this.closed || this.feeds.get(id) !== feed) return;
    this.feeds.delete(id);
    feed.call.cancel();
    this.retryAt.set(id, Date.now() + (olderRelease ? UNIMPLEMENTED_RETRY_MS : this.options.checkIntervalMs()));
    if (!this.reported.has(id)) {
      this.reported.add(id);
      this.handlers.problem(
        'SHARD_UNAVAILABLE',
        `node ${id} does not stream its live events to this tail (${why}); events ingested through it are missing until it is back`,
      );
    }
    // A member that went away no longer holds the catchup back.
    this.onListening?.();
  }
}

/** The other members' ingest, as a tail session's live source. */
export function memberTailSource(options: TailFeedsOptions): LiveSourceFactory {
  return (query, handlers) => new MemberFeeds(options, query, handlers);
}
