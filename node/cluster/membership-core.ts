/**
 * What the parts of membership share: this node's view of the cluster state, the peers' liveness
 * and protocol minors, the replicated payload, and the bookkeeping of background work and warnings.
 */
import type { EventEmitter } from 'events';
import { EMPTY_STATE, epochsOf, type ClusterState } from './cluster-state';
import { HintReports } from './hint-reports';
import { LivenessTracker, type Liveness } from './liveness';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_JOIN_TIMEOUT_MS,
  type MasterView,
  type MembershipEvents,
  type MembershipOptions,
  type ReplicatedPayload,
} from './membership-types';
import { PeerMinors } from './peer-minors';
import { PeerRefusals } from './peer-refusals';

/** A version a peer sends: the wire reads 64-bit values as numbers, which must stay exact. */
export const isVersion = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;

export class MembershipCore {
  /** seeds[0]. */
  readonly masterAddress: string;
  readonly isMaster: boolean;
  current: ClusterState = EMPTY_STATE;
  readonly liveness: LivenessTracker;
  /** What each peer speaks: a new epoch records a layout only once every member reads layouts. */
  readonly peerMinors = new PeerMinors();
  /** The hint targets each peer named in its last heartbeat. */
  readonly hintReports = new HintReports();
  /** The refusals of peers' membership calls. */
  readonly refusals: PeerRefusals;
  payload: ReplicatedPayload | null = null;
  readonly background = new Set<Promise<unknown>>();
  private readonly warned = new Set<string>();
  started = false;
  /** When start() ended (ms since the epoch): a member not heard from since counts as down only a failure timeout later. */
  startedAtMs: number | null = null;
  closed = false;
  readonly stopWaiting = new AbortController();
  readonly joinTimeoutMs: number;
  readonly callTimeoutMs: number;

  constructor(
    readonly options: MembershipOptions,
    readonly events: EventEmitter<MembershipEvents>,
  ) {
    const master = options.seeds[0];
    if (master === undefined) throw new Error('membership needs cluster.seeds; the first one is the master');
    this.masterAddress = master;
    this.isMaster = master === options.self.grpc;
    this.joinTimeoutMs = options.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.liveness = new LivenessTracker(options.failureTimeoutMs, (id, up) => events.emit(up ? 'member-up' : 'member-down', id));
    this.refusals = new PeerRefusals(options.logger);
  }

  /** Whether `id` is up, when it was last heard from, and its last counts. */
  livenessOf(id: string, now = Date.now()): Liveness {
    if (id === this.options.self.id) return { up: true, lastHeartbeatMs: now, stats: this.options.stats() };
    return this.liveness.of(id, now);
  }

  master(): MasterView {
    const id = this.current.members.find((member) => member.grpc === this.masterAddress)?.id ?? null;
    return {
      address: this.masterAddress,
      id,
      self: this.isMaster,
      up: this.isMaster || (id !== null && this.liveness.of(id, Date.now()).up),
    };
  }

  masterName(): string {
    const { id } = this.master();
    return id === null ? `the master at ${this.masterAddress}` : `the master ${id} at ${this.masterAddress}`;
  }

  placementOf(id: string): { self: boolean; removed: boolean; epochs: number[] } {
    return { self: id === this.options.self.id, removed: this.current.removed.includes(id), epochs: epochsOf(this.current, id) };
  }

  track(work: Promise<unknown>): void {
    this.background.add(work);
    void work.finally(() => this.background.delete(work));
  }

  /** Logs a lasting problem with a peer once, not every heartbeat. */
  warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.logger.warn(message);
  }
}
