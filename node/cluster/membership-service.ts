/**
 * The gRPC services membership answers: Join (on the master), Heartbeat, PullState and PushState,
 * and NodeInfo.Stats. What peers send is checked like a client's input; a refusal is counted and
 * logged once per sender and reason (peer-refusals.ts).
 */
import { status } from '@grpc/grpc-js';
import { nodeIdProblem } from '../config/peer-names';
import {
  joinConflict,
  MAX_MEMBERS,
  memberById,
  parseJoinStoredAlone,
  quoted,
  sameMember,
  storedAloneConflict,
  withJoined,
  type ClusterState,
  type Member,
  type StoredAlone,
} from './cluster-state';
import { NodeIdTakenError } from './errors';
import type { ClusterFormation } from './formation';
import type * as wire from './grpc/messages';
import { MEMBERSHIP_SERVICE, NODE_INFO_SERVICE } from './grpc/proto';
import { RpcRefusal, unary, type GrpcServer } from './grpc/server';
import { memberFromWire, protocolVersion, stateFromWire, stateToWire, statsToWire, storedAloneFromWire } from './grpc/wire';
import { isVersion, type MembershipCore } from './membership-core';
import { StateRefusedError } from './membership-types';
import { LAYOUT_MINOR, protocolProblem } from './protocol';
import { sameState, successionProblem } from './state-succession';
import type { StateSync } from './state-sync';

/** A node id a peer sent, as a message names it: quoted (and cut short) when it is no node id. */
const peerName = (id: string | undefined): string =>
  id === undefined || id === '' ? '(no id)' : nodeIdProblem(id) === null ? id : quoted(id);

/** Whether a peer that sent `version` reads ring epoch layouts (protocol 1.4 or a later major). */
function readsLayouts(version: wire.ProtocolVersion | null): boolean {
  return version !== null && (version.major > 1 || version.minor >= LAYOUT_MINOR);
}

export class MembershipService {
  constructor(
    private readonly core: MembershipCore,
    private readonly sync: StateSync,
    private readonly formation: ClusterFormation,
  ) {}

  /** Adds the Membership and NodeInfo services to the node's gRPC server. */
  addTo(server: GrpcServer): void {
    const { logger } = this.core.options;
    const failed = (error: Error): void => logger.error(`cluster: a membership call failed: ${error.stack ?? error.message}`);
    const counted =
      <Request, Reply>(method: string, sender: (request: Request) => string, handler: (request: Request) => Promise<Reply>) =>
      async (request: Request): Promise<Reply> => {
        try {
          return await handler(request);
        } catch (error) {
          if (error instanceof RpcRefusal) this.core.refusals.refused(method, sender(request), error);
          throw error;
        }
      };
    server.addService(MEMBERSHIP_SERVICE, {
      Join: unary(
        counted(
          'Join',
          (request: wire.JoinRequest) => request.node?.id ?? '',
          (request) => this.onJoin(request),
        ),
        failed,
      ),
      Heartbeat: unary(
        counted(
          'Heartbeat',
          (request: wire.HeartbeatRequest) => request.from?.id ?? '',
          (request) => this.onHeartbeat(request),
        ),
        failed,
      ),
      PullState: unary(
        counted(
          'PullState',
          (request: wire.PullStateRequest) => request.from,
          (request) => this.onPullState(request),
        ),
        failed,
      ),
      PushState: unary(
        counted(
          'PushState',
          (request: wire.PushStateRequest) => request.from,
          (request) => this.onPushState(request),
        ),
        failed,
      ),
    });
    server.addService(NODE_INFO_SERVICE, {
      Stats: unary(async (request: wire.StatsRequest) => {
        this.refuseUnknownProtocol(request.protocol_version, 'the caller');
        return { protocol_version: protocolVersion(), stats: statsToWire(this.core.options.self.id, this.core.options.stats()) };
      }, failed),
    });
  }

  private refuseUnknownProtocol(version: wire.ProtocolVersion | null, peer: string): void {
    const problem = protocolProblem(version, peer);
    if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'protocol-version', problem);
  }

  private async onJoin(request: wire.JoinRequest): Promise<wire.JoinReply> {
    const { self } = this.core.options;
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.node?.id)}`);
    if (!this.core.isMaster) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-master',
        `node ${self.id} at ${self.grpc} is not the master; the master is the first of cluster.seeds here, ${this.core.masterAddress}: give every node the same seeds`,
      );
    }
    if (!this.core.started) throw new RpcRefusal(status.UNAVAILABLE, 'starting', `the master ${self.id} is starting`);
    const member = this.memberOf(request.node, 'node');
    let alone: StoredAlone | null = null;
    if (request.stored_alone !== undefined && request.stored_alone !== null) {
      try {
        alone = parseJoinStoredAlone(storedAloneFromWire(request.stored_alone), member.id);
      } catch (error) {
        throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-join', `node ${member.id}'s join: ${(error as Error).message}`);
      }
    }
    const state = await this.sync.change((current) => {
      const aloneProblem = alone === null ? null : storedAloneConflict(current, alone);
      if (aloneProblem !== null)
        throw new RpcRefusal(
          status.ALREADY_EXISTS,
          'stored-alone-conflict',
          `${aloneProblem}: start node ${member.id} under another cluster.node_id`,
        );
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
      if (known !== undefined && !sameMember(known, member) && this.core.livenessOf(known.id).up) {
        // Whoever announces other addresses for a member that answers heartbeats is not that member;
        // the member itself, restarted, is seen down first (a starting node refuses heartbeats).
        throw new RpcRefusal(
          status.UNAVAILABLE,
          'member-up',
          `node ${member.id} is up at ${known.grpc} with HTTP ${known.http}; its addresses change only once it is down`,
        );
      }
      if (
        !readsLayouts(request.protocol_version) &&
        current.forming.length === 0 &&
        current.epochs.some((epoch) => epoch.layout !== undefined)
      ) {
        throw new RpcRefusal(
          status.FAILED_PRECONDITION,
          'protocol-version',
          `node ${member.id} speaks protocol ${request.protocol_version!.major}.${request.protocol_version!.minor}, which places every ring epoch on the consistent-hash ring; this cluster places data by epochs with a layout (protocol 1.${LAYOUT_MINOR}): run this release on node ${member.id}`,
        );
      }
      this.core.peerMinors.heard(member.id, request.protocol_version);
      return withJoined(current, member, this.formation.epochStart(), this.formation.layoutNow(current, member.id), alone);
    }, member.id);
    return { protocol_version: protocolVersion(), state: stateToWire(state), payload: this.sync.payloadOut() };
  }

  private async onHeartbeat(request: wire.HeartbeatRequest): Promise<wire.HeartbeatReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.from?.id)}`);
    if (!this.core.started) throw new RpcRefusal(status.UNAVAILABLE, 'starting', `node ${this.core.options.self.id} is starting`);
    const from = this.memberOf(request.from, 'from');
    if (!isVersion(request.state_version) || !isVersion(request.payload_version)) {
      throw new RpcRefusal(
        status.INVALID_ARGUMENT,
        'invalid-heartbeat',
        'state_version and payload_version must be integers from 0 to 2^53',
      );
    }
    const hintsFor = request.hints_for;
    const badTarget = hintsFor.find((id) => nodeIdProblem(id) !== null);
    if (hintsFor.length > MAX_MEMBERS || badTarget !== undefined) {
      throw new RpcRefusal(
        status.INVALID_ARGUMENT,
        'invalid-heartbeat',
        `hints_for names at most ${MAX_MEMBERS} node ids${badTarget === undefined ? '' : `, not ${quoted(badTarget)}`}`,
      );
    }
    const sender = memberById(this.core.current, from.id);
    if (sender !== undefined && sender.grpc !== from.grpc) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'node-id-taken',
        `node ${from.id} of this cluster is at ${sender.grpc}, not ${from.grpc}`,
        { 'held-at': sender.grpc },
      );
    }
    if (sender !== undefined && sender.id !== this.core.options.self.id && !this.core.closed) {
      this.core.peerMinors.heard(sender.id, request.protocol_version);
      this.core.liveness.heard(sender.id, Date.now());
      this.core.hintReports.report(sender.id, hintsFor);
    }
    // A node this one does not know joined after this node's copy of the state, or this node (a
    // master with a new data dir) lost its copy: catchUp asks whom it may.
    if (sender?.id !== this.core.options.self.id) this.sync.catchUp(request.state_version, request.payload_version, from.grpc);
    return {
      protocol_version: protocolVersion(),
      node_id: this.core.options.self.id,
      state_version: this.core.current.version,
      payload_version: this.core.payload?.version() ?? 0,
      stats: statsToWire(this.core.options.self.id, this.core.options.stats()),
    };
  }

  private async onPullState(request: wire.PullStateRequest): Promise<wire.PullStateReply> {
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.from)}`);
    const problem = nodeIdProblem(request.from);
    if (problem !== null) throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-request', `from: ${problem}`);
    return { protocol_version: protocolVersion(), state: stateToWire(this.core.current), payload: this.sync.payloadOut() };
  }

  /**
   * The master's next version. Anyone can name the master in `from`, so a push that could follow
   * this node's state is confirmed by pulling from the master this node knows: what the master
   * holds is installed, and a push it does not hold is refused.
   */
  private async onPushState(request: wire.PushStateRequest): Promise<wire.PushStateReply> {
    const { self } = this.core.options;
    this.refuseUnknownProtocol(request.protocol_version, `node ${peerName(request.from)}`);
    const master = this.core.master();
    if (this.core.isMaster || master.id === null || request.from !== master.id) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-from-master',
        `node ${self.id} takes the cluster state only from ${this.core.isMaster ? 'itself, the master' : this.core.masterName()}; not from ${quoted(request.from)}`,
      );
    }
    let state: ClusterState;
    try {
      state = stateFromWire(request.state);
    } catch (error) {
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-state', `the pushed cluster state is not valid: ${(error as Error).message}`);
    }
    const payload = request.payload;
    if (!isVersion(payload?.version ?? 0))
      throw new RpcRefusal(status.INVALID_ARGUMENT, 'invalid-state', 'the payload version must be an integer from 0 to 2^53');
    this.refuseUnlikelySuccessor(state, payload);
    try {
      await this.sync.pull(this.core.masterAddress);
    } catch (error) {
      if (error instanceof StateRefusedError) throw new RpcRefusal(status.FAILED_PRECONDITION, error.reason, error.message);
      throw new RpcRefusal(
        status.UNAVAILABLE,
        'master-unavailable',
        `confirming the push with ${this.core.masterName()} failed: ${(error as Error).message}`,
      );
    }
    const heldPayload = this.core.payload?.version() ?? 0;
    const unconfirmed =
      state.version > this.core.current.version ||
      (state.version === this.core.current.version && !sameState(state, this.core.current)) ||
      (payload !== null && this.core.payload !== null && payload.version > heldPayload);
    if (unconfirmed) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-from-master',
        `the pushed state v${state.version} (payload v${payload?.version ?? 0}) is not what ${this.core.masterName()} holds (v${this.core.current.version}, payload v${heldPayload})`,
      );
    }
    return { protocol_version: protocolVersion(), state_version: this.core.current.version, payload_version: heldPayload };
  }

  /**
   * Refuses a push that is not the master's next version after this node's (an older one, left
   * behind by a newer push, is let through): one that skips versions (the node pulls the ones it
   * missed from the master instead) or breaks the succession rules.
   */
  private refuseUnlikelySuccessor(state: ClusterState, payload: wire.Payload | null): void {
    const held = this.core.current;
    if (state.version === held.version && !sameState(state, held)) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'state-conflict',
        `the pushed state v${state.version} differs from this node's v${held.version}`,
      );
    }
    if (state.version > held.version + 1) {
      this.sync.catchUp(state.version, 0, null);
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'state-gap',
        `the pushed state v${state.version} does not follow v${held.version} here: a push is taken one version at a time; this node pulls the versions it missed from ${this.core.masterName()}`,
      );
    }
    if (state.version === held.version + 1) {
      const problem = successionProblem(held, state);
      if (problem !== null)
        throw new RpcRefusal(
          status.FAILED_PRECONDITION,
          'state-succession',
          `the pushed state cannot follow v${held.version} here: ${problem}`,
        );
    }
    if (payload === null || this.core.payload === null) return;
    const heldPayload = this.core.payload.version();
    if (payload.version > heldPayload + 1) {
      this.sync.catchUp(0, payload.version, null);
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'payload-gap',
        `the pushed payload v${payload.version} does not follow v${heldPayload} here: a push is taken one version at a time; this node pulls the versions it missed from ${this.core.masterName()}`,
      );
    }
    if (payload.version === heldPayload + 1) {
      const problem = this.core.payload.problem(payload.version, payload.data);
      if (problem !== null)
        throw new RpcRefusal(
          status.FAILED_PRECONDITION,
          'payload-succession',
          `the pushed payload cannot follow v${heldPayload} here: ${problem}`,
        );
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
}
