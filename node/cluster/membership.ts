/**
 * Membership: joining the cluster, the replicated cluster state, and failure detection.
 *
 * Every node starts with the same seeds (gRPC addresses); the node at seeds[0] is the master. Only
 * the master decides a new state version (a join, a remove), persists it and pushes it to every
 * member; every node persists the newest version it sees, so a restarted node, a restarted master or
 * a promoted seed starts from it. Heartbeats go from every node to every other member (liveness is
 * known without the master) and carry the sender's versions: a node that sees a newer one pulls it
 * from the master. An opaque payload (the metadata snapshot) can travel with the state under its own
 * version.
 *
 * What peers send is checked like a client's input (docs/architecture.md, "Who may change the
 * state"): a push is taken only as the master's next version, confirmed with the master itself; a
 * pull goes to the master only (a master that holds only its founding state, having lost its copy,
 * asks another seed); a state that drops what no operation drops is refused (state-succession.ts);
 * a join may not take another member's id or addresses. Refusals are counted and logged once per
 * sender and reason (peer-refusals.ts).
 *
 * The gRPC server and the peer clients are the caller's: membership adds its services to the server,
 * which the caller then makes listen (with its own services) before start().
 */
import { EventEmitter } from 'events';
import { setTimeout as delay } from 'timers/promises';
import { status } from '@grpc/grpc-js';
import type { NodeRecords } from '../../storage/node-records';
import type { Logger } from '../core/logger';
import { nodeIdProblem } from '../config/peer-names';
import {
  EMPTY_STATE,
  epochsOf,
  forgetProblem,
  foundCluster,
  joinConflict,
  MAX_MEMBERS,
  memberById,
  parseJoinStoredAlone,
  quoted,
  removalEpoch,
  removeProblem,
  sameMember,
  storedAloneConflict,
  withForgotten,
  withFormed,
  withJoined,
  withRemoved,
  type ClusterState,
  type Member,
  type StoredAlone,
} from './cluster-state';
import { CURRENT_LAYOUT, epochStartClearOf, nextEpochStart, type EpochLayout } from './epochs';
import { ForgetRefusedError, JoinRefusedError, MasterUnavailableError, NodeIdTakenError, NotMasterError, RemoveRefusedError } from './errors';
import { HintReports } from './hint-reports';
import type * as wire from './grpc/messages';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { MEMBERSHIP, MEMBERSHIP_SERVICE, NODE_INFO_SERVICE } from './grpc/proto';
import { RpcRefusal, unary, type GrpcServer } from './grpc/server';
import { memberFromWire, memberToWire, protocolVersion, stateFromWire, stateToWire, statsFromWire, statsToWire, storedAloneFromWire, storedAloneToWire } from './grpc/wire';
import { LivenessTracker, type Liveness } from './liveness';
import type { NodeStats } from './node-stats';
import { PeerRefusals } from './peer-refusals';
import { PeerMinors } from './peer-minors';
import { formatVersion, LAYOUT_MINOR, protocolProblem } from './protocol';
import { successionProblem, sameState } from './state-succession';
import { loadClusterState, saveClusterState } from './state-store';

/**
 * A payload replicated from the master with the cluster state, under its own version (the
 * metadata snapshot). Heartbeats carry its version, so a node that is behind pulls it.
 */
export interface ReplicatedPayload {
  /** The version this node holds (0: none). */
  version(): number;
  /** What this node holds, to send; null when it holds none. */
  current(): { version: number; data: Buffer } | null;
  /** Why a payload `version` - version() versions newer cannot follow this node's (null: it can). */
  problem(version: number, data: Buffer): string | null;
  /** Installs a payload received from a peer, newer than version(); resolves once durable. */
  install(version: number, data: Buffer): Promise<void>;
}

/** A state or payload this node will not take, and why (a refusal reason of proto/README.md). */
export class StateRefusedError extends Error {
  constructor(
    readonly reason: 'state-succession' | 'payload-succession' | 'not-this-cluster',
    message: string,
  ) {
    super(message);
    this.name = 'StateRefusedError';
  }
}

export interface MembershipOptions {
  /** This node as peers and clients reach it. */
  self: Member;
  /** gRPC addresses, the same on every node; the node at seeds[0] is the master. */
  seeds: readonly string[];
  /** Where the state is kept: engine.records('cluster'). */
  records: NodeRecords;
  server: GrpcServer;
  peers: PeerClients;
  heartbeatIntervalMs: number;
  failureTimeoutMs: number;
  /** cluster.bucket_span: an epoch never starts before the bucket of the newest event stored. */
  bucketSpanMicros: number;
  /** What this node stored alone before it became a member (stored-alone.ts); taken into the state at its first join. */
  storedAlone?: StoredAlone | null;
  /** This node's storage counts (cachedStats(engineNodeStats(engine), ...)). */
  stats: () => NodeStats;
  logger: Logger;
  /** The nodes this node holds hints for, told to every peer with each heartbeat. */
  hintTargets?: () => readonly string[];
  /** How long start() keeps asking a master that does not answer a join before MasterUnavailableError. */
  joinTimeoutMs?: number;
  /** The deadline of a join, pull, push or stats call. */
  callTimeoutMs?: number;
  /** How long a new cluster's master waits for the other seeds before it forms without them. */
  formationTimeoutMs?: number;
}

export interface MemberView extends Liveness {
  member: Member;
  /** This node. */
  self: boolean;
  /** Taken out of future placement. */
  removed: boolean;
  /** The ring epochs it is in. */
  epochs: number[];
}

export interface MasterView {
  /** seeds[0]. */
  address: string;
  /** Its node id, null until the state names a member at that address. */
  id: string | null;
  self: boolean;
  up: boolean;
}

/** Who answered a push, and who did not (a node that missed one pulls on its next heartbeat). */
export interface PushOutcome {
  reached: string[];
  missed: string[];
}

export interface MembershipEvents {
  /** A new state version was installed (decided here or received). */
  state: [state: ClusterState];
  'member-up': [id: string];
  'member-down': [id: string];
}

export const DEFAULT_JOIN_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 5_000;
/** Seeds start together in practice; one that has not joined by then joins later, in a future ring epoch. */
export const DEFAULT_FORMATION_TIMEOUT_MS = 60_000;
/** A new ring epoch starts at least this many heartbeats after it is decided, so every node has it first. */
export const EPOCH_LEAD_HEARTBEATS = 5;

/** A node id a peer sent, as a message names it: quoted (and cut short) when it is no node id. */
const peerName = (id: string | undefined): string => (id === undefined || id === '' ? '(no id)' : nodeIdProblem(id) === null ? id : quoted(id));

/** A version a peer sends: the wire reads 64-bit values as numbers, which must stay exact. */
const isVersion = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;

/** Whether a peer that sent `version` reads ring epoch layouts (protocol 1.4 or a later major). */
function readsLayouts(version: wire.ProtocolVersion | null): boolean {
  return version !== null && (version.major > 1 || version.minor >= LAYOUT_MINOR);
}

export class Membership extends EventEmitter<MembershipEvents> {
  /** seeds[0]. */
  readonly masterAddress: string;
  readonly isMaster: boolean;
  private current: ClusterState = EMPTY_STATE;
  private readonly liveness: LivenessTracker;
  /** What each peer speaks: a new epoch records a layout only once every member reads layouts. */
  private readonly peerMinors = new PeerMinors();
  /** The hint targets each peer named in its last heartbeat. */
  readonly hintReports = new HintReports();
  /** The refusals of peers' membership calls. */
  readonly refusals: PeerRefusals;
  private payload: ReplicatedPayload | null = null;
  /** State changes and installs, one at a time. */
  private changes: Promise<unknown> = Promise.resolve();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private formationTimer: NodeJS.Timeout | null = null;
  private readonly heartbeatsInFlight = new Set<string>();
  private pulling = false;
  private lastPullMs = 0;
  private readonly background = new Set<Promise<unknown>>();
  private readonly warned = new Set<string>();
  private started = false;
  /** When start() ended (ms since the epoch): a member not heard from since counts as down only a failure timeout later. */
  private startedAtMs: number | null = null;
  private closed = false;
  private readonly stopWaiting = new AbortController();
  private readonly joinTimeoutMs: number;
  private readonly callTimeoutMs: number;

  constructor(private readonly options: MembershipOptions) {
    super();
    const master = options.seeds[0];
    if (master === undefined) throw new Error('membership needs cluster.seeds; the first one is the master');
    this.masterAddress = master;
    this.isMaster = master === options.self.grpc;
    this.joinTimeoutMs = options.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.liveness = new LivenessTracker(options.failureTimeoutMs, (id, up) => this.emit(up ? 'member-up' : 'member-down', id));
    this.refusals = new PeerRefusals(options.logger);
    const failed = (error: Error): void => options.logger.error(`cluster: a membership call failed: ${error.stack ?? error.message}`);
    const counted =
      <Request, Reply>(method: string, sender: (request: Request) => string, handler: (request: Request) => Promise<Reply>) =>
      async (request: Request): Promise<Reply> => {
        try {
          return await handler(request);
        } catch (error) {
          if (error instanceof RpcRefusal) this.refusals.refused(method, sender(request), error);
          throw error;
        }
      };
    options.server.addService(MEMBERSHIP_SERVICE, {
      Join: unary(
        counted('Join', (request: wire.JoinRequest) => request.node?.id ?? '', (request) => this.onJoin(request)),
        failed,
      ),
      Heartbeat: unary(
        counted('Heartbeat', (request: wire.HeartbeatRequest) => request.from?.id ?? '', (request) => this.onHeartbeat(request)),
        failed,
      ),
      PullState: unary(
        counted('PullState', (request: wire.PullStateRequest) => request.from, (request) => this.onPullState(request)),
        failed,
      ),
      PushState: unary(
        counted('PushState', (request: wire.PushStateRequest) => request.from, (request) => this.onPushState(request)),
        failed,
      ),
    });
    options.server.addService(NODE_INFO_SERVICE, {
      Stats: unary(async (request: wire.StatsRequest) => {
        this.refuseUnknownProtocol(request.protocol_version, 'the caller');
        return { protocol_version: protocolVersion(), stats: statsToWire(this.options.self.id, this.options.stats()) };
      }, failed),
    });
  }

  /**
   * Takes this node into the cluster; the gRPC server listens already. The master founds the
   * cluster or takes its stored state; another node joins through the master, or on a restart
   * pulls the latest state (going on with its stored copy while the master is down).
   * Throws JoinRefusedError (NodeIdTakenError among them): the process should exit 1;
   * MasterUnavailableError when a join found no master within joinTimeoutMs.
   */
  async start(): Promise<void> {
    const { self } = this.options;
    this.current = await loadClusterState(this.options.records);
    const held = memberById(this.current, self.id);
    if (held !== undefined && held.grpc !== self.grpc) throw new NodeIdTakenError(self.id, held.grpc, self.grpc);
    if (this.isMaster) {
      const alone = this.options.storedAlone ?? null;
      await this.change((state) => (state.version === 0 ? foundCluster(self, this.options.seeds, alone) : withJoined(state, self, this.epochStart(), this.layoutNow(state), alone)));
      if (this.current.forming.length > 0) this.awaitFormation();
    } else if (held !== undefined && sameMember(held, self)) {
      await this.pull(this.masterAddress).catch((error: Error) =>
        this.options.logger.warn(`cluster: going on with the stored cluster state v${this.current.version}; ${this.masterName()} did not answer (${error instanceof PeerCallError ? error.plainDetails : error.message})`),
      );
    } else {
      await this.join();
    }
    this.started = true;
    this.startedAtMs = Date.now();
    this.options.logger.info(`cluster: node ${self.id} is a member (state v${this.current.version}, ${this.current.members.length} members; ${this.masterName()})`);
    this.heartbeatTimer = setInterval(() => this.beat(), this.options.heartbeatIntervalMs);
    this.beat();
  }

  /** The newest cluster state this node has. */
  state(): ClusterState {
    return this.current;
  }

  /** Every member with its liveness, in the state's order. */
  members(): MemberView[] {
    const now = Date.now();
    // Whoever sees a member down here has had its member-down event first.
    this.liveness.sweep(now);
    return this.current.members.map((member) => ({ member, ...this.livenessOf(member.id, now), ...this.placementOf(member.id) }));
  }

  /** Whether `id` is up, when it was last heard from, and its last counts. */
  livenessOf(id: string, now = Date.now()): Liveness {
    if (id === this.options.self.id) return { up: true, lastHeartbeatMs: now, stats: this.options.stats() };
    return this.liveness.of(id, now);
  }

  master(): MasterView {
    const id = this.current.members.find((member) => member.grpc === this.masterAddress)?.id ?? null;
    return { address: this.masterAddress, id, self: this.isMaster, up: this.isMaster || (id !== null && this.liveness.of(id, Date.now()).up) };
  }

  /**
   * On the master: takes `id` out of future placement (a new ring epoch without it, its id in
   * `removed`); it stays a member, so its old data stays reachable while it runs.
   */
  remove(id: string): Promise<ClusterState> {
    if (!this.isMaster) return Promise.reject(new NotMasterError(this.masterAddress, `removing node ${id}`));
    return this.change((state) => {
      const problem = removeProblem(state, id);
      if (problem !== null) throw new RemoveRefusedError(problem, id);
      return withRemoved(state, id, this.epochStart(), this.layoutNow(state));
    });
  }

  /**
   * On the master: forgets a removed node that is down, giving up its data (withForgotten): it is
   * no member any more, and its id may join again as a new node.
   */
  forget(id: string): Promise<ClusterState> {
    if (!this.isMaster) return Promise.reject(new NotMasterError(this.masterAddress, `forgetting node ${id}`));
    return this.change((state) => {
      const problem = forgetProblem(state, id, Date.now() * 1000) ?? (this.seenDown(id) ? null : 'up');
      if (problem === 'removal-pending') {
        const removal = removalEpoch(state, id);
        throw new ForgetRefusedError(problem, id, removal === undefined ? undefined : new Date(Math.floor(removal.fromMicros / 1000)).toISOString());
      }
      if (problem !== null) throw new ForgetRefusedError(problem, id);
      return withForgotten(state, id);
    });
  }

  /** Carries `payload` with every state push and pull from now on; set before start(). */
  carryPayload(payload: ReplicatedPayload): void {
    this.payload = payload;
  }

  /** On the master: pushes the state with the payload as it is now to every member (after the payload changed). */
  publishPayload(): Promise<PushOutcome> {
    if (!this.isMaster) return Promise.reject(new NotMasterError(this.masterAddress, 'publishing the replicated payload'));
    return this.pushToMembers(null);
  }

  /** Stops heartbeats and waits for pushes and installs under way; the server and clients are the caller's to close. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.formationTimer !== null) clearTimeout(this.formationTimer);
    this.stopWaiting.abort();
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    await Promise.allSettled([...this.background, this.changes]);
  }

  // ---- joining and the state --------------------------------------------------------------

  /** On the master of a forming cluster: forms it without the seeds that have not joined in time (counted from this start). */
  private awaitFormation(): void {
    const waitMs = this.options.formationTimeoutMs ?? DEFAULT_FORMATION_TIMEOUT_MS;
    this.options.logger.info(`cluster: forming; waiting up to ${waitMs} ms for the seeds at ${this.current.forming.join(', ')} (ingest is refused until then)`);
    this.formationTimer = setTimeout(() => {
      const missing = this.current.forming;
      if (missing.length === 0 || this.closed) return;
      this.track(
        this.change(withFormed).then(() =>
          this.options.logger.warn(`cluster: formed without the seeds at ${missing.join(', ')} (not joined within ${waitMs} ms); they join in a later ring epoch`),
        ),
      );
    }, waitMs);
    this.formationTimer.unref();
  }

  private async join(): Promise<void> {
    const { self, logger } = this.options;
    const alone = this.options.storedAlone ?? null;
    const deadline = Date.now() + this.joinTimeoutMs;
    let waitLogged = false;
    for (;;) {
      try {
        const reply = await this.options.peers.call(
          this.masterAddress,
          MEMBERSHIP.Join,
          { protocol_version: protocolVersion(), node: memberToWire(self), stored_alone: alone === null ? null : storedAloneToWire(alone) },
          this.callTimeoutMs,
        );
        const problem = protocolProblem(reply.protocol_version, `the master at ${this.masterAddress}`);
        if (problem !== null) throw new JoinRefusedError('protocol-version', problem);
        const state = stateFromWire(reply.state);
        // A master of a release before 1.4 drops what this node stored alone: queries would never find it.
        if (alone !== null && !state.storedAlone.some((each) => each.node === self.id)) {
          throw new JoinRefusedError(
            'protocol-version',
            `the master at ${this.masterAddress} did not take in the ${alone.indexes.length} index(es) this node stored alone (protocol ${formatVersion(reply.protocol_version!)}; 1.4 or later keeps them): upgrade the master first`,
          );
        }
        await this.install(state, reply.payload, this.masterName());
        return;
      } catch (error) {
        if (!(error instanceof PeerCallError)) throw error;
        if (!error.unreachable) throw this.joinRefusal(error);
        if (this.closed || Date.now() >= deadline) {
          throw new MasterUnavailableError(this.masterAddress, this.master().id, `node ${self.id} cannot join the cluster`, error.plainDetails);
        }
        if (!waitLogged) logger.warn(`cluster: waiting up to ${this.joinTimeoutMs} ms for ${this.masterName()} to answer the join (${error.plainDetails})`);
        waitLogged = true;
        await delay(Math.min(this.options.heartbeatIntervalMs, 1000), undefined, { signal: this.stopWaiting.signal }).catch(() => undefined);
      }
    }
  }

  /** The typed error for a join the master refused. */
  private joinRefusal(error: PeerCallError): Error {
    const { self } = this.options;
    if (error.reason === 'node-id-taken') return new NodeIdTakenError(self.id, error.facts['held-at'] ?? 'another address', self.grpc);
    if (error.reason === 'not-master' || error.reason === 'protocol-version' || error.reason === 'address-taken' || error.reason === 'invalid-member') {
      return new JoinRefusedError(error.reason, error.details);
    }
    return new Error(`node ${self.id} cannot join the cluster: ${error.message}`);
  }

  /** Decides a new version (the master), persists it, installs it and pushes it to the members but `skipPush`. */
  private change(decide: (state: ClusterState) => ClusterState, skipPush: string | null = null): Promise<ClusterState> {
    return this.oneAtATime(async () => {
      const next = decide(this.current);
      if (next === this.current) return next;
      await saveClusterState(this.options.records, next);
      this.adopt(next);
      this.track(this.pushToMembers(skipPush));
      return next;
    });
  }

  /**
   * Installs a state (and payload) this node asked the master for (a join, a pull) when newer than
   * this node's and a possible successor of it; persists first. The master too: a newer state than
   * its own means it lost its copy (a new data dir). Throws StateRefusedError for one it will not take.
   */
  private async install(state: ClusterState, payload: wire.Payload | null, source: string): Promise<void> {
    await this.oneAtATime(async () => {
      const newState = state.version > this.current.version;
      const newPayload = payload !== null && this.payload !== null && payload.version > this.payload.version();
      if (newState) {
        const { self } = this.options;
        if (memberById(state, self.id)?.grpc !== self.grpc) {
          throw new StateRefusedError('not-this-cluster', `the cluster state v${state.version} of ${source} does not hold this node, ${self.id} at ${self.grpc}`);
        }
        const problem = successionProblem(this.current, state);
        if (problem !== null) throw new StateRefusedError('state-succession', `the cluster state of ${source} cannot follow v${this.current.version} here: ${problem}`);
      }
      if (newPayload) {
        const problem = this.payload!.problem(payload.version, payload.data);
        if (problem !== null) throw new StateRefusedError('payload-succession', `the payload of ${source} cannot follow v${this.payload!.version()} here: ${problem}`);
      }
      if (newState) {
        await saveClusterState(this.options.records, state);
        this.adopt(state);
      }
      if (newPayload) await this.payload!.install(payload.version, payload.data);
    });
  }

  private adopt(state: ClusterState): void {
    this.current = state;
    const ids = new Set(state.members.map((member) => member.id));
    this.liveness.retain(ids);
    this.hintReports.retain(ids);
    if (this.started) this.options.logger.info(`cluster: state v${state.version} (${state.members.length} members, ${state.epochs.length} ring epochs)`);
    this.emit('state', state);
  }

  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.changes.then(work);
    this.changes = run.catch(() => undefined);
    return run;
  }

  private async pushToMembers(skip: string | null): Promise<PushOutcome> {
    const { self } = this.options;
    const request: wire.PushStateRequest = { protocol_version: protocolVersion(), from: self.id, state: stateToWire(this.current), payload: this.payloadOut() };
    const targets = this.current.members.filter((member) => member.id !== self.id && member.id !== skip);
    const results = await Promise.allSettled(targets.map((member) => this.options.peers.call(member.grpc, MEMBERSHIP.PushState, request, this.callTimeoutMs)));
    const outcome: PushOutcome = { reached: [], missed: [] };
    results.forEach((result, i) => (result.status === 'fulfilled' ? outcome.reached : outcome.missed).push(targets[i]!.id));
    return outcome;
  }

  /** Takes the state and payload of `address`: the master, or another seed for a master that lost its copy. */
  private async pull(address: string): Promise<void> {
    this.lastPullMs = Date.now();
    const reply = await this.options.peers.call(address, MEMBERSHIP.PullState, { protocol_version: protocolVersion(), from: this.options.self.id }, this.callTimeoutMs);
    const source = address === this.masterAddress ? this.masterName() : `the seed at ${address}`;
    const problem = protocolProblem(reply.protocol_version, source);
    if (problem !== null) throw new Error(problem);
    await this.install(stateFromWire(reply.state), reply.payload, source);
  }

  /**
   * Pulls from the master when a peer says there is a newer state or payload than this node's; one
   * pull at a time, at most one a heartbeat interval, since what a peer says may not be so. A master
   * asks `seed` (the peer, when it is one of the other seeds) instead, and only while it holds no
   * more than the state it founded: it lost its copy, and the cluster's is with the other nodes.
   */
  private catchUp(stateVersion: number, payloadVersion: number, seed: string | null): void {
    const behind = stateVersion > this.current.version || (this.payload !== null && payloadVersion > this.payload.version());
    if (!behind || this.pulling || this.closed || Date.now() - this.lastPullMs < this.options.heartbeatIntervalMs) return;
    const address = !this.isMaster ? this.masterAddress : this.current.version <= 1 && seed !== null && seed !== this.options.self.grpc && this.options.seeds.includes(seed) ? seed : null;
    if (address === null) return;
    this.pulling = true;
    this.track(
      this.pull(address)
        .catch((error: Error) => this.warnOnce(`pull:${address}:${error.message}`, `cluster: pulling the cluster state from ${address} failed: ${error.message}`))
        .finally(() => (this.pulling = false)),
    );
  }

  private payloadOut(): wire.Payload | null {
    return this.payload?.current() ?? null;
  }

  /** Where a ring epoch decided now starts (epochs.ts epochStartClearOf), over the newest event any member holds. */
  private epochStart(): number {
    const soonest = nextEpochStart(Date.now() * 1000, EPOCH_LEAD_HEARTBEATS * this.options.heartbeatIntervalMs * 1000);
    let newest = this.options.stats().newestEventMicros ?? 0;
    // Every member's last known counts, whether it is up now or not.
    for (const member of this.current.members) newest = Math.max(newest, this.liveness.of(member.id, Date.now()).stats?.newestEventMicros ?? 0);
    const start = epochStartClearOf(soonest, newest, this.options.bucketSpanMicros);
    if (start !== soonest) {
      this.options.logger.warn(
        `cluster: the new ring epoch starts at ${new Date(start / 1000).toISOString()}, not within seconds: ` +
          `events timed up to ${new Date(newest / 1000).toISOString()} are stored already, and their buckets keep their owners`,
      );
    }
    return start;
  }

  // ---- heartbeats -------------------------------------------------------------------------

  private beat(): void {
    if (this.closed) return;
    for (const member of this.current.members) {
      if (member.id === this.options.self.id || this.heartbeatsInFlight.has(member.id)) continue;
      this.heartbeatsInFlight.add(member.id);
      this.track(this.heartbeat(member).finally(() => this.heartbeatsInFlight.delete(member.id)));
    }
    this.liveness.sweep(Date.now());
  }

  private async heartbeat(member: Member): Promise<void> {
    const request: wire.HeartbeatRequest = {
      protocol_version: protocolVersion(),
      from: memberToWire(this.options.self),
      state_version: this.current.version,
      payload_version: this.payload?.version() ?? 0,
      hints_for: [...(this.options.hintTargets?.() ?? [])],
    };
    let reply: wire.HeartbeatReply;
    try {
      // A heartbeat may take up to the failure timeout: only then does silence mean down.
      reply = await this.options.peers.call(member.grpc, MEMBERSHIP.Heartbeat, request, this.options.failureTimeoutMs);
    } catch (error) {
      if (error instanceof PeerCallError && !error.unreachable) this.warnOnce(`refused:${member.id}`, `cluster: node ${member.id} refuses heartbeats: ${error.details}`);
      return;
    }
    const problem = protocolProblem(reply.protocol_version, `node ${member.id} at ${member.grpc}`);
    if (problem !== null) return this.warnOnce(`protocol:${member.id}`, `cluster: ${problem}`);
    if (reply.node_id !== member.id) {
      return this.warnOnce(`identity:${member.id}`, `cluster: ${member.grpc} answers as node ${reply.node_id}, not ${member.id}`);
    }
    if (this.closed) return;
    this.peerMinors.heard(member.id, reply.protocol_version);
    this.liveness.heard(member.id, Date.now(), reply.stats === null ? undefined : statsFromWire(reply.stats));
    if (isVersion(reply.state_version) && isVersion(reply.payload_version)) this.catchUp(reply.state_version, reply.payload_version, member.grpc);
  }

  /**
   * The layout of a ring epoch decided now: this release's, once every other member (and
   * `joining`) has been heard speaking a protocol that reads layouts; the ring until then (a
   * member of an older release would place a laid-out epoch on the ring, unlike the others). A
   * removed node not heard since this node started is left out: taken out for good, it would
   * otherwise keep every later epoch on the ring.
   */
  private layoutNow(state: ClusterState, joining?: string): EpochLayout | null {
    const others = state.members
      .map((member) => member.id)
      .filter((id) => id !== this.options.self.id && id !== joining && !(state.removed.includes(id) && !this.peerMinors.has(id)));
    if (joining !== undefined) others.push(joining);
    return this.peerMinors.allAtLeast(others, LAYOUT_MINOR) ? CURRENT_LAYOUT : null;
  }

  // ---- what peers ask ---------------------------------------------------------------------

  private refuseUnknownProtocol(version: wire.ProtocolVersion | null, peer: string): void {
    const problem = protocolProblem(version, peer);
    if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'protocol-version', problem);
  }

  private async onJoin(request: wire.JoinRequest): Promise<wire.JoinReply> {
    const { self } = this.options;
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.node?.id)}`);
    if (!this.isMaster) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-master',
        `node ${self.id} at ${self.grpc} is not the master; the master is the first of cluster.seeds here, ${this.masterAddress}: give every node the same seeds`,
      );
    }
    if (!this.started) throw new RpcRefusal(status.UNAVAILABLE, 'starting', `the master ${self.id} is starting`);
    const member = this.memberOf(request.node, 'node');
    let alone: StoredAlone | null = null;
    if (request.stored_alone !== undefined && request.stored_alone !== null) {
      try {
        alone = parseJoinStoredAlone(storedAloneFromWire(request.stored_alone), member.id);
      } catch (error) {
        throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-join', `node ${member.id}'s join: ${(error as Error).message}`);
      }
    }
    const state = await this.change((current) => {
      const aloneProblem = alone === null ? null : storedAloneConflict(current, alone);
      if (aloneProblem !== null) throw new RpcRefusal(status.ALREADY_EXISTS, 'stored-alone-conflict', `${aloneProblem}: start node ${member.id} under another cluster.node_id`);
      const conflict = joinConflict(current, member);
      if (conflict?.kind === 'node-id-taken') {
        const message = new NodeIdTakenError(member.id, conflict.holder.grpc, member.grpc).message;
        throw new RpcRefusal(status.ALREADY_EXISTS, 'node-id-taken', message, { 'held-at': conflict.holder.grpc });
      }
      if (conflict?.kind === 'address-taken') {
        throw new RpcRefusal(
          status.ALREADY_EXISTS,
          'address-taken',
          `node ${member.id} cannot join at ${conflict.address}: node ${conflict.holder.id} of this cluster is there; give each node its own addresses`,
          { 'held-by': conflict.holder.id },
        );
      }
      const known = memberById(current, member.id);
      if (known !== undefined && !sameMember(known, member) && this.livenessOf(known.id).up) {
        // Whoever announces other addresses for a member that answers heartbeats is not that member;
        // the member itself, restarted, is seen down first (a starting node refuses heartbeats).
        throw new RpcRefusal(
          status.UNAVAILABLE,
          'member-up',
          `node ${member.id} is up at ${known.grpc} with HTTP ${known.http}; its addresses change only once it is down`,
        );
      }
      if (!readsLayouts(request.protocol_version) && current.forming.length === 0 && current.epochs.some((epoch) => epoch.layout !== undefined)) {
        throw new RpcRefusal(
          status.FAILED_PRECONDITION,
          'protocol-version',
          `node ${member.id} speaks protocol ${request.protocol_version!.major}.${request.protocol_version!.minor}, which places every ring epoch on the consistent-hash ring; this cluster places data by epochs with a layout (protocol 1.${LAYOUT_MINOR}): run this release on node ${member.id}`,
        );
      }
      this.peerMinors.heard(member.id, request.protocol_version);
      return withJoined(current, member, this.epochStart(), this.layoutNow(current, member.id), alone);
    }, member.id);
    return { protocol_version: protocolVersion(), state: stateToWire(state), payload: this.payloadOut() };
  }

  private async onHeartbeat(request: wire.HeartbeatRequest): Promise<wire.HeartbeatReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.from?.id)}`);
    if (!this.started) throw new RpcRefusal(status.UNAVAILABLE, 'starting', `node ${this.options.self.id} is starting`);
    const from = this.memberOf(request.from, 'from');
    if (!isVersion(request.state_version) || !isVersion(request.payload_version)) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-heartbeat', 'state_version and payload_version must be integers from 0 to 2^53');
    }
    const hintsFor = request.hints_for;
    const badTarget = hintsFor.find((id) => nodeIdProblem(id) !== null);
    if (hintsFor.length > MAX_MEMBERS || badTarget !== undefined) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-heartbeat', `hints_for names at most ${MAX_MEMBERS} node ids${badTarget === undefined ? '' : `, not ${quoted(badTarget)}`}`);
    }
    const sender = memberById(this.current, from.id);
    if (sender !== undefined && sender.grpc !== from.grpc) {
      throw new RpcRefusal(status.FAILED_PRECONDITION, 'node-id-taken', `node ${from.id} of this cluster is at ${sender.grpc}, not ${from.grpc}`, { 'held-at': sender.grpc });
    }
    if (sender !== undefined && sender.id !== this.options.self.id && !this.closed) {
      this.peerMinors.heard(sender.id, request.protocol_version);
      this.liveness.heard(sender.id, Date.now());
      this.hintReports.report(sender.id, hintsFor);
    }
    // A node this one does not know joined after this node's copy of the state, or this node (a
    // master with a new data dir) lost its copy: catchUp asks whom it may.
    if (sender?.id !== this.options.self.id) this.catchUp(request.state_version, request.payload_version, from.grpc);
    return {
      protocol_version: protocolVersion(),
      node_id: this.options.self.id,
      state_version: this.current.version,
      payload_version: this.payload?.version() ?? 0,
      stats: statsToWire(this.options.self.id, this.options.stats()),
    };
  }

  private async onPullState(request: wire.PullStateRequest): Promise<wire.PullStateReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.from)}`);
    const problem = nodeIdProblem(request.from);
    if (problem !== null) throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-request', `from: ${problem}`);
    return { protocol_version: protocolVersion(), state: stateToWire(this.current), payload: this.payloadOut() };
  }

  /**
   * The master's next version. Anyone can name the master in `from`, so a push that could follow
   * this node's state is confirmed by pulling from the master this node knows: what the master
   * holds is installed, and a push it does not hold is refused.
   */
  private async onPushState(request: wire.PushStateRequest): Promise<wire.PushStateReply> {
    const { self } = this.options;
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.from)}`);
    const master = this.master();
    if (this.isMaster || master.id === null || request.from !== master.id) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-from-master',
        `node ${self.id} takes the cluster state only from ${this.isMaster ? 'itself, the master' : this.masterName()}; not from ${quoted(request.from)}`,
      );
    }
    let state: ClusterState;
    try {
      state = stateFromWire(request.state);
    } catch (error) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-state', `the pushed cluster state is not valid: ${(error as Error).message}`);
    }
    const payload = request.payload;
    if (!isVersion(payload?.version ?? 0)) throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-state', 'the payload version must be an integer from 0 to 2^53');
    this.refuseUnlikelySuccessor(state, payload);
    try {
      await this.pull(this.masterAddress);
    } catch (error) {
      if (error instanceof StateRefusedError) throw new RpcRefusal(status.FAILED_PRECONDITION, error.reason, error.message);
      throw new RpcRefusal(status.UNAVAILABLE, 'master-unavailable', `confirming the push with ${this.masterName()} failed: ${(error as Error).message}`);
    }
    const heldPayload = this.payload?.version() ?? 0;
    const unconfirmed =
      state.version > this.current.version ||
      (state.version === this.current.version && !sameState(state, this.current)) ||
      (payload !== null && this.payload !== null && payload.version > heldPayload);
    if (unconfirmed) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-from-master',
        `the pushed state v${state.version} (payload v${payload?.version ?? 0}) is not what ${this.masterName()} holds (v${this.current.version}, payload v${heldPayload})`,
      );
    }
    return { protocol_version: protocolVersion(), state_version: this.current.version, payload_version: heldPayload };
  }

  /**
   * Refuses a push that is not the master's next version after this node's (an older one, left
   * behind by a newer push, is let through): one that skips versions (the node pulls the ones it
   * missed from the master instead) or breaks the succession rules.
   */
  private refuseUnlikelySuccessor(state: ClusterState, payload: wire.Payload | null): void {
    const held = this.current;
    if (state.version === held.version && !sameState(state, held)) {
      throw new RpcRefusal(status.FAILED_PRECONDITION, 'state-conflict', `the pushed state v${state.version} differs from this node's v${held.version}`);
    }
    if (state.version > held.version + 1) {
      this.catchUp(state.version, 0, null);
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'state-gap',
        `the pushed state v${state.version} does not follow v${held.version} here: a push is taken one version at a time; this node pulls the versions it missed from ${this.masterName()}`,
      );
    }
    if (state.version === held.version + 1) {
      const problem = successionProblem(held, state);
      if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'state-succession', `the pushed state cannot follow v${held.version} here: ${problem}`);
    }
    if (payload === null || this.payload === null) return;
    const heldPayload = this.payload.version();
    if (payload.version > heldPayload + 1) {
      this.catchUp(0, payload.version, null);
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'payload-gap',
        `the pushed payload v${payload.version} does not follow v${heldPayload} here: a push is taken one version at a time; this node pulls the versions it missed from ${this.masterName()}`,
      );
    }
    if (payload.version === heldPayload + 1) {
      const problem = this.payload.problem(payload.version, payload.data);
      if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'payload-succession', `the pushed payload cannot follow v${heldPayload} here: ${problem}`);
    }
  }

  /** A member a peer named, checked; INVALID_ARGUMENT naming what is wrong. */
  private memberOf(member: wire.Member | null, where: string): Member {
    try {
      return memberFromWire(member, where);
    } catch (error) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-member', (error as Error).message);
    }
  }

  // ---- small things -----------------------------------------------------------------------

  /**
   * Whether `id` is known to be down: silent for the failure timeout, whether heard from since this
   * node started or not (a node just started has heard no one yet, which does not make them down).
   */
  private seenDown(id: string, now = Date.now()): boolean {
    const liveness = this.livenessOf(id, now);
    if (liveness.up) return false;
    return liveness.lastHeartbeatMs !== null || (this.startedAtMs !== null && now - this.startedAtMs > this.options.failureTimeoutMs);
  }

  private placementOf(id: string): { self: boolean; removed: boolean; epochs: number[] } {
    return { self: id === this.options.self.id, removed: this.current.removed.includes(id), epochs: epochsOf(this.current, id) };
  }

  private masterName(): string {
    const { id } = this.master();
    return id === null ? `the master at ${this.masterAddress}` : `the master ${id} at ${this.masterAddress}`;
  }

  private track(work: Promise<unknown>): void {
    this.background.add(work);
    void work.finally(() => this.background.delete(work));
  }

  /** Logs a lasting problem with a peer once, not every heartbeat. */
  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.logger.warn(message);
  }
}
