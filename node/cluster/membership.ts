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
 *
 * The parts, one module each: formation.ts (joining, forming, the master's decisions),
 * state-sync.ts (state push and pull), failure-detection.ts (heartbeats), membership-service.ts
 * (the gRPC handlers), over the shared view of membership-core.ts. This class wires them.
 */
import { EventEmitter } from 'events';
import type { ClusterState } from './cluster-state';
import { FailureDetection } from './failure-detection';
import { ClusterFormation } from './formation';
import type { HintReports } from './hint-reports';
import type { Liveness } from './liveness';
import { MembershipCore } from './membership-core';
import { MembershipService } from './membership-service';
import { NotMasterError } from './errors';
import type { MasterView, MemberView, MembershipEvents, MembershipOptions, PushOutcome, ReplicatedPayload } from './membership-types';
import type { PeerRefusals } from './peer-refusals';
import { StateSync } from './state-sync';

export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_FORMATION_TIMEOUT_MS,
  DEFAULT_JOIN_TIMEOUT_MS,
  EPOCH_LEAD_HEARTBEATS,
  StateRefusedError,
  type MasterView,
  type MembershipEvents,
  type MembershipOptions,
  type MemberView,
  type PushOutcome,
  type ReplicatedPayload,
} from './membership-types';

export class Membership extends EventEmitter<MembershipEvents> {
  /** seeds[0]. */
  readonly masterAddress: string;
  readonly isMaster: boolean;
  /** The hint targets each peer named in its last heartbeat. */
  readonly hintReports: HintReports;
  /** The refusals of peers' membership calls. */
  readonly refusals: PeerRefusals;
  private readonly core: MembershipCore;
  private readonly sync: StateSync;
  private readonly detection: FailureDetection;
  private readonly formation: ClusterFormation;

  constructor(options: MembershipOptions) {
    super();
    this.core = new MembershipCore(options, this);
    this.masterAddress = this.core.masterAddress;
    this.isMaster = this.core.isMaster;
    this.hintReports = this.core.hintReports;
    this.refusals = this.core.refusals;
    this.sync = new StateSync(this.core);
    this.detection = new FailureDetection(this.core, this.sync);
    this.formation = new ClusterFormation(this.core, this.sync, this.detection);
    new MembershipService(this.core, this.sync, this.formation).addTo(options.server);
  }

  /**
   * Takes this node into the cluster; the gRPC server listens already. The master founds the
   * cluster or takes its stored state; another node joins through the master, or on a restart
   * pulls the latest state (going on with its stored copy while the master is down).
   * Throws JoinRefusedError (NodeIdTakenError among them): the process should exit 1;
   * MasterUnavailableError when a join found no master within joinTimeoutMs.
   */
  async start(): Promise<void> {
    const core = this.core;
    await this.formation.enter();
    core.started = true;
    core.startedAtMs = Date.now();
    core.options.logger.info(
      `cluster: node ${core.options.self.id} is a member (state v${core.current.version}, ${core.current.members.length} members; ${core.masterName()})`,
    );
    this.detection.start();
  }

  /** The newest cluster state this node has. */
  /** Whether node `id` was heard speaking protocol 1.`minor` or later (a method added then is there). */
  speaksMinor(id: string, minor: number): boolean {
    return this.core.peerMinors.allAtLeast([id], minor);
  }

  state(): ClusterState {
    return this.core.current;
  }

  /**
   * Whether every other member was heard speaking protocol 1.`minor` or later, leaving out a
   * removed node not heard since this node started (taken out for good, it would hold this back
   * for ever), as the layout of a new epoch does (formation.ts layoutNow).
   */
  everyMemberSpeaks(minor: number): boolean {
    const core = this.core;
    const state = core.current;
    const others = state.members
      .map((member) => member.id)
      .filter((id) => id !== core.options.self.id && !(state.removed.includes(id) && !core.peerMinors.has(id)));
    return core.peerMinors.allAtLeast(others, minor);
  }

  /** Every member with its liveness, in the state's order. */
  members(): MemberView[] {
    const core = this.core;
    const now = Date.now();
    // Whoever sees a member down here has had its member-down event first.
    core.liveness.sweep(now);
    return core.current.members.map((member) => ({ member, ...core.livenessOf(member.id, now), ...core.placementOf(member.id) }));
  }

  /** Whether `id` is up, when it was last heard from, and its last counts. */
  livenessOf(id: string, now = Date.now()): Liveness {
    return this.core.livenessOf(id, now);
  }

  master(): MasterView {
    return this.core.master();
  }

  /**
   * On the master: takes `id` out of future placement (a new ring epoch without it, its id in
   * `removed`); it stays a member, so its old data stays reachable while it runs.
   */
  remove(id: string): Promise<ClusterState> {
    return this.formation.remove(id);
  }

  /**
   * On the master: forgets a removed node that is down, giving up its data (withForgotten): it is
   * no member any more, and its id may join again as a new node.
   */
  forget(id: string): Promise<ClusterState> {
    return this.formation.forget(id);
  }

  /** Carries `payload` with every state push and pull from now on; set before start(). */
  carryPayload(payload: ReplicatedPayload): void {
    this.core.payload = payload;
  }

  /** On the master: pushes the state with the payload as it is now to every member (after the payload changed). */
  publishPayload(): Promise<PushOutcome> {
    if (!this.isMaster) return Promise.reject(new NotMasterError(this.masterAddress, 'publishing the replicated payload'));
    return this.sync.pushToMembers(null);
  }

  /** Stops heartbeats and waits for pushes and installs under way; the server and clients are the caller's to close. */
  async close(): Promise<void> {
    const core = this.core;
    core.closed = true;
    this.formation.stop();
    core.stopWaiting.abort();
    this.detection.stop();
    await Promise.allSettled([...core.background, this.sync.settled()]);
  }
}
