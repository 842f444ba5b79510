/**
 * Hint replay: once an owner is up again, the hints this node kept for it go back to it with
 * ShardWrite.ReplayHint, oldest first, one at a time and in seq order (the owner applies each
 * once, by its mark of the highest seq applied), at a bounded rate. A hint leaves the store only
 * after the owner acknowledged it. Replay to an owner stops when it goes down again, and pauses
 * while the owner refuses under backpressure.
 */
import { setTimeout as delay } from 'timers/promises';
import type { Logger } from '../core/logger';
import type { ClusterMetrics } from '../metrics/metrics';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { SHARD_WRITE } from './grpc/proto';
import { protocolVersion } from './grpc/wire';
import type { Hint, HintStore } from './hints';
import type { ShareFloors } from './share-floors';
import type { ClusterState } from './cluster-state';
import type { HintReports } from './hint-reports';
import { BACKPRESSURE_REFUSAL } from './shard-write';

/**
 * Hint bytes a second that a returning owner receives, shared by every node replaying to it (each
 * takes an equal part, knowing the others from their heartbeats). A chunk record is about 250
 * bytes an event, so 16 MiB/s is some 65,000 events a second: a third or so of what one node
 * ingests on two cores, which leaves the owner room for its live writes and queries while an hour
 * of a busy node's missed share drains in minutes rather than hours. Backpressure on the owner
 * slows replay further.
 */
export const REPLAY_BYTES_PER_SECOND = 16 * 1024 * 1024;
/**
 * Tests slow replay down with this variable to watch a returning owner catch up; nothing else
 * reads it, and it is no config key.
 */
export const TEST_REPLAY_RATE_VARIABLE = 'TRAWL_TEST_HINT_REPLAY_BYTES_PER_SECOND';
/** Hints read from the store at a time. */
const REPLAY_BATCH = 16;
export const REPLAY_TIMEOUT_MS = 10_000;
/** How long replay to an owner waits after it refused under backpressure. */
const BACKPRESSURE_PAUSE_MS = 1_000;
/** How long replay to an owner waits after any other refusal (logged) before it tries again. */
const REFUSED_PAUSE_MS = 30_000;

/** The replay rate a test set (TEST_REPLAY_RATE_VARIABLE), undefined when none did. */
export function testReplayRate(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const rate = Number(env[TEST_REPLAY_RATE_VARIABLE]);
  return rate > 0 ? rate : undefined;
}

/**
 * Paces sends to a rate in bytes a second: a send may go once the previous ones' bytes have had
 * their time, so one large record goes at once and the average stays at the rate.
 */
export class BytePacer {
  private readyAtMs = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds until the next send may go. */
  waitMs(): number {
    return Math.max(0, this.readyAtMs - this.now());
  }

  /** Takes the time of `bytes` sent now at `bytesPerSecond`. */
  sent(bytes: number, bytesPerSecond: number): void {
    this.readyAtMs = Math.max(this.readyAtMs, this.now()) + (bytes * 1000) / bytesPerSecond;
  }
}

/** What replay needs of membership: who is up (member-up starts a replay), the members' addresses, who else holds hints. */
export interface ReplayMembership {
  on(event: 'member-up', listener: (id: string) => void): unknown;
  off(event: 'member-up', listener: (id: string) => void): unknown;
  livenessOf(id: string): { up: boolean };
  state(): Pick<ClusterState, 'members'>;
  readonly hintReports: Pick<HintReports, 'holdersOf'>;
}

export interface HintReplayOptions {
  /** This node's id. */
  self: string;
  hints: HintStore;
  /** Each owner's share_floor_ms, sent with every hint. */
  floors: Pick<ShareFloors, 'floorFor'>;
  membership: ReplayMembership;
  peers: PeerClients;
  metrics: ClusterMetrics;
  logger: Logger;
  /** How often owners with hints are looked for (besides when one comes up): the heartbeat interval. */
  checkIntervalMs: number;
  /** The rate a returning owner receives hints at from all nodes (REPLAY_BYTES_PER_SECOND). */
  bytesPerSecond?: number;
}

export class HintReplayer {
  private readonly running = new Map<string, Promise<void>>();
  /** Owners whose replay paused after a refusal, and until when. */
  private readonly pausedUntil = new Map<string, number>();
  private readonly pacers = new Map<string, BytePacer>();
  private readonly warned = new Set<string>();
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private readonly onMemberUp = (id: string): void => this.kick(id);

  constructor(private readonly options: HintReplayOptions) {}

  start(): void {
    this.options.membership.on('member-up', this.onMemberUp);
    this.timer = setInterval(() => {
      for (const target of this.options.hints.pendingByTarget().keys()) this.kick(target);
    }, this.options.checkIntervalMs);
    this.timer.unref();
  }

  /** Stops replay (a send in flight is answered or times out first). */
  async close(): Promise<void> {
    this.stop.abort();
    if (this.timer !== null) clearInterval(this.timer);
    this.options.membership.off('member-up', this.onMemberUp);
    await Promise.allSettled(this.running.values());
  }

  /** Starts replay to `target` when it has hints, is up, and is not being replayed to or paused. */
  private kick(target: string): void {
    if (this.stop.signal.aborted || this.running.has(target) || this.options.hints.pending(target) === 0) return;
    if ((this.pausedUntil.get(target) ?? 0) > Date.now() || !this.isUp(target)) return;
    const run = this.replay(target)
      .catch((error: Error) =>
        this.options.logger.error(`cluster: replaying hints to node ${target} failed: ${error.stack ?? error.message}`),
      )
      .finally(() => this.running.delete(target));
    this.running.set(target, run);
  }

  private isUp(target: string): boolean {
    return this.options.membership.livenessOf(target).up;
  }

  private async replay(target: string): Promise<void> {
    const { hints, logger } = this.options;
    const started = hints.pending(target);
    let replayed = 0;
    for (;;) {
      const batch = await hints.oldest(target, REPLAY_BATCH);
      if (batch.length === 0) break;
      for (const hint of batch) {
        if (!(await this.send(target, hint))) {
          if (replayed > 0) logger.info(`cluster: replayed ${replayed} hints to node ${target}, ${hints.pending(target)} left; stopped`);
          return;
        }
        replayed++;
      }
    }
    if (replayed > 0) logger.info(`cluster: replayed ${replayed} hints to node ${target} (${started} were pending)`);
  }

  /** Sends one hint and drops it once acknowledged; false when replay to `target` stops for now. */
  private async send(target: string, hint: Hint): Promise<boolean> {
    const { self, hints, peers, metrics, membership } = this.options;
    const pacer = this.pacerOf(target);
    for (;;) {
      if (!(await this.pause(pacer.waitMs()))) return false;
      const address = membership.state().members.find((member) => member.id === target)?.grpc;
      if (address === undefined || !this.isUp(target)) return false;
      try {
        await peers.call(
          address,
          SHARD_WRITE.ReplayHint,
          {
            protocol_version: protocolVersion(),
            origin: self,
            hint_log: hints.logId,
            seq: hint.seq,
            record: hint.record,
            share_id: hint.shareId,
            share_floor_ms: this.options.floors.floorFor(target),
          },
          REPLAY_TIMEOUT_MS,
        );
      } catch (error) {
        if (!(error instanceof PeerCallError) || error.unreachable) return false;
        if (error.reason === BACKPRESSURE_REFUSAL) {
          if (!(await this.pause(BACKPRESSURE_PAUSE_MS))) return false;
          continue;
        }
        this.warnOnce(
          `${target}:${error.reason ?? error.code}`,
          `cluster: node ${target} refuses hint ${hint.seq}; replay to it pauses for ${REFUSED_PAUSE_MS} ms: ${error.details}`,
        );
        this.pausedUntil.set(target, Date.now() + REFUSED_PAUSE_MS);
        return false;
      }
      pacer.sent(hint.record.length, this.rateFor(target));
      await hints.done(target, hint);
      metrics.hintsReplayed.inc({ target });
      metrics.hintBytesReplayed.inc({ target }, hint.record.length);
      return true;
    }
  }

  /** This node's part of the owner's replay rate: an equal share with every other node heard holding hints for it. */
  private rateFor(target: string): number {
    const others = this.options.membership.hintReports.holdersOf(target).filter((holder) => holder !== this.options.self).length;
    return (this.options.bytesPerSecond ?? REPLAY_BYTES_PER_SECOND) / (1 + others);
  }

  private pacerOf(target: string): BytePacer {
    let pacer = this.pacers.get(target);
    if (pacer === undefined) this.pacers.set(target, (pacer = new BytePacer()));
    return pacer;
  }

  /** Waits `ms`; false when replay was stopped meanwhile. */
  private async pause(ms: number): Promise<boolean> {
    if (ms > 0) await delay(ms, undefined, { signal: this.stop.signal }).catch(() => undefined);
    return !this.stop.signal.aborted;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.logger.warn(message);
  }
}
