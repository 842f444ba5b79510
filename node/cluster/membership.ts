/**
 * Membership: joining the cluster, the replicated cluster state, and failure detection.
 *
 * Every node starts with the same seeds (gRPC addresses); the node at seeds[0] is the master. Only
 * the master decides a new state version (a join, a remove), persists it and pushes it to every
 * member; every node persists the newest version it sees, so a restarted node, a restarted master or
 * a promoted seed starts from it. Heartbeats go from every node to every other member (liveness is
 * known without the master) and carry the sender's versions: a node that sees a newer one pulls it.
 * An opaque payload (the metadata snapshot) can travel with the state under its own version.
 *
 * The gRPC server and the peer clients are the caller's: membership adds its services to the server,
 * which the caller then makes listen (with its own services) before start().
 */
import { EventEmitter } from 'events';
import { setTimeout as delay } from 'timers/promises';
import { status } from '@grpc/grpc-js';
import type { NodeRecords } from '../../storage/node-records';
import type { Logger } from '../logger';
import {
  EMPTY_STATE,
  epochsOf,
  foundCluster,
  joinConflict,
  memberById,
  removeProblem,
  sameMember,
  withFormed,
  withJoined,
  withRemoved,
  type ClusterState,
  type Member,
} from './cluster-state';
import { nextEpochStart } from './epochs';
import { JoinRefusedError, MasterUnavailableError, NodeIdTakenError, NotMasterError, RemoveRefusedError } from './errors';
import { HintReports } from './hint-reports';
import type * as wire from './grpc/messages';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { MEMBERSHIP, MEMBERSHIP_SERVICE, NODE_INFO_SERVICE } from './grpc/proto';
import { RpcRefusal, unary, type GrpcServer } from './grpc/server';
import { memberFromWire, memberToWire, protocolVersion, stateFromWire, stateToWire, statsFromWire, statsToWire } from './grpc/wire';
import { LivenessTracker, type Liveness } from './liveness';
import type { NodeStats } from './node-stats';
import { protocolProblem } from './protocol';
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
  /** Installs a payload received from a peer, newer than version(); resolves once durable. */
  install(version: number, data: Buffer): Promise<void>;
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
  bucketSpanMicros: number;
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
/** A new ring epoch starts at least this many heartbeats (and a bucket) after it is decided, so every node has it first. */
export const EPOCH_LEAD_HEARTBEATS = 5;

export class Membership extends EventEmitter<MembershipEvents> {
  /** seeds[0]. */
  readonly masterAddress: string;
  readonly isMaster: boolean;
  private current: ClusterState = EMPTY_STATE;
  private readonly liveness: LivenessTracker;
  /** The hint targets each peer named in its last heartbeat. */
  readonly hintReports = new HintReports();
  private payload: ReplicatedPayload | null = null;
  /** State changes and installs, one at a time. */
  private changes: Promise<unknown> = Promise.resolve();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private formationTimer: NodeJS.Timeout | null = null;
  private readonly heartbeatsInFlight = new Set<string>();
  private pulling = false;
  private readonly background = new Set<Promise<unknown>>();
  private readonly warned = new Set<string>();
  private started = false;
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
    const failed = (error: Error): void => options.logger.error(`cluster: a membership call failed: ${error.stack ?? error.message}`);
    options.server.addService(MEMBERSHIP_SERVICE, {
      Join: unary((request: wire.JoinRequest) => this.onJoin(request), failed),
      Heartbeat: unary((request: wire.HeartbeatRequest) => this.onHeartbeat(request), failed),
      PullState: unary((request: wire.PullStateRequest) => this.onPullState(request), failed),
      PushState: unary((request: wire.PushStateRequest) => this.onPushState(request), failed),
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
      await this.change((state) => (state.version === 0 ? foundCluster(self, this.options.seeds) : withJoined(state, self, this.epochStart())));
      if (this.current.forming.length > 0) this.awaitFormation();
    } else if (held !== undefined && sameMember(held, self)) {
      await this.pull(this.masterAddress).catch((error: Error) =>
        this.options.logger.warn(`cluster: going on with the stored cluster state v${this.current.version}; ${this.masterName()} did not answer (${error.message})`),
      );
    } else {
      await this.join();
    }
    this.started = true;
    this.options.logger.info(`cluster: node ${self.id} is a member (state v${this.current.version}, ${this.current.members.length} members, master ${this.masterName()})`);
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
      return withRemoved(state, id, this.epochStart());
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
    const deadline = Date.now() + this.joinTimeoutMs;
    let waitLogged = false;
    for (;;) {
      try {
        const reply = await this.options.peers.call(
          this.masterAddress,
          MEMBERSHIP.Join,
          { protocol_version: protocolVersion(), node: memberToWire(self) },
          this.callTimeoutMs,
        );
        const problem = protocolProblem(reply.protocol_version, `the master at ${this.masterAddress}`);
        if (problem !== null) throw new JoinRefusedError('protocol-version', problem);
        await this.install(stateFromWire(reply.state), reply.payload);
        return;
      } catch (error) {
        if (!(error instanceof PeerCallError)) throw error;
        if (!error.unreachable) throw this.joinRefusal(error);
        if (this.closed || Date.now() >= deadline) {
          throw new MasterUnavailableError(this.masterAddress, this.master().id, `node ${self.id} cannot join the cluster`, error.details);
        }
        if (!waitLogged) logger.warn(`cluster: waiting up to ${this.joinTimeoutMs} ms for ${this.masterName()} to answer the join (${error.details})`);
        waitLogged = true;
        await delay(Math.min(this.options.heartbeatIntervalMs, 1000), undefined, { signal: this.stopWaiting.signal }).catch(() => undefined);
      }
    }
  }

  /** The typed error for a join the master refused. */
  private joinRefusal(error: PeerCallError): Error {
    const { self } = this.options;
    if (error.reason === 'node-id-taken') return new NodeIdTakenError(self.id, error.facts['held-at'] ?? 'another address', self.grpc);
    if (error.reason === 'not-master' || error.reason === 'protocol-version') {
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
   * Installs a state (and payload) received from a peer when newer than this node's; persists
   * first. The master too: a newer state than its own means it lost its copy (a new data dir).
   */
  private async install(state: ClusterState, payload: wire.Payload | null): Promise<void> {
    await this.oneAtATime(async () => {
      if (state.version > this.current.version) {
        await saveClusterState(this.options.records, state);
        this.adopt(state);
      }
      if (payload !== null && this.payload !== null && payload.version > this.payload.version()) {
        await this.payload.install(payload.version, payload.data);
      }
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

  private async pull(address: string): Promise<void> {
    const reply = await this.options.peers.call(address, MEMBERSHIP.PullState, { protocol_version: protocolVersion(), from: this.options.self.id }, this.callTimeoutMs);
    const problem = protocolProblem(reply.protocol_version, `the node at ${address}`);
    if (problem !== null) throw new Error(problem);
    await this.install(stateFromWire(reply.state), reply.payload);
  }

  /** Pulls from `address` when it has a newer state or payload than this node; one pull at a time. */
  private catchUp(address: string, stateVersion: number, payloadVersion: number): void {
    const behind = stateVersion > this.current.version || (this.payload !== null && payloadVersion > this.payload.version());
    if (!behind || this.pulling || this.closed) return;
    this.pulling = true;
    this.track(
      this.pull(address)
        .catch((error: Error) => this.options.logger.warn(`cluster: pulling the cluster state from ${address} failed: ${error.message}`))
        .finally(() => (this.pulling = false)),
    );
  }

  private payloadOut(): wire.Payload | null {
    return this.payload?.current() ?? null;
  }

  private epochStart(): number {
    return nextEpochStart(Date.now() * 1000, this.options.bucketSpanMicros, EPOCH_LEAD_HEARTBEATS * this.options.heartbeatIntervalMs * 1000);
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
    this.liveness.heard(member.id, Date.now(), reply.stats === null ? undefined : statsFromWire(reply.stats));
    this.catchUp(member.grpc, reply.state_version, reply.payload_version);
  }

  // ---- what peers ask ---------------------------------------------------------------------

  private refuseUnknownProtocol(version: wire.ProtocolVersion | null, peer: string): void {
    const problem = protocolProblem(version, peer);
    if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'protocol-version', problem);
  }

  private async onJoin(request: wire.JoinRequest): Promise<wire.JoinReply> {
    const { self } = this.options;
    this.refuseUnknownProtocol(request.protocol_version, `node ${request.node?.id ?? '(no id)'}`);
    if (!this.isMaster) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-master',
        `node ${self.id} at ${self.grpc} is not the master; the master is the first of cluster.seeds here, ${this.masterAddress}: give every node the same seeds`,
      );
    }
    if (!this.started) throw new RpcRefusal(status.UNAVAILABLE, 'starting', `the master ${self.id} is starting`);
    let member: Member;
    try {
      member = memberFromWire(request.node, 'node');
    } catch (error) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-member', (error as Error).message);
    }
    const state = await this.change((current) => {
      const conflict = joinConflict(current, member);
      if (conflict !== null) {
        const message = new NodeIdTakenError(member.id, conflict.holder.grpc, member.grpc).message;
        throw new RpcRefusal(status.ALREADY_EXISTS, 'node-id-taken', message, { 'held-at': conflict.holder.grpc });
      }
      return withJoined(current, member, this.epochStart());
    }, member.id);
    return { protocol_version: protocolVersion(), state: stateToWire(state), payload: this.payloadOut() };
  }

  private async onHeartbeat(request: wire.HeartbeatRequest): Promise<wire.HeartbeatReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${request.from?.id ?? '(no id)'}`);
    const from = request.from;
    const sender = from === null ? undefined : memberById(this.current, from.id);
    if (sender !== undefined && sender.id !== this.options.self.id && !this.closed) {
      this.liveness.heard(sender.id, Date.now());
      this.hintReports.report(sender.id, request.hints_for);
      this.catchUp(sender.grpc, request.state_version, request.payload_version);
    } else if (sender === undefined && from !== null && from.grpc !== '') {
      // A node this one does not know: it joined after this node's copy of the state, or this node
      // (a master with a new data dir) lost its copy. Either way its newer state is the cluster's.
      this.catchUp(from.grpc, request.state_version, request.payload_version);
    }
    return {
      protocol_version: protocolVersion(),
      node_id: this.options.self.id,
      state_version: this.current.version,
      payload_version: this.payload?.version() ?? 0,
      stats: statsToWire(this.options.self.id, this.options.stats()),
    };
  }

  private async onPullState(request: wire.PullStateRequest): Promise<wire.PullStateReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${request.from}`);
    return { protocol_version: protocolVersion(), state: stateToWire(this.current), payload: this.payloadOut() };
  }

  private async onPushState(request: wire.PushStateRequest): Promise<wire.PushStateReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${request.from}`);
    let state: ClusterState;
    try {
      state = stateFromWire(request.state);
    } catch (error) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-state', `the pushed cluster state is not valid: ${(error as Error).message}`);
    }
    await this.install(state, request.payload);
    return { protocol_version: protocolVersion(), state_version: this.current.version, payload_version: this.payload?.version() ?? 0 };
  }

  // ---- small things -----------------------------------------------------------------------

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
