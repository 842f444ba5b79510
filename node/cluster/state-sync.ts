/**
 * The cluster state moving between nodes: the master decides and pushes a new version; a node
 * installs what it asked for (a join, a pull) once it checks it can follow its own; a node a peer
 * tells of a newer version pulls it. Changes and installs run one at a time.
 */
import type { ClusterState } from './cluster-state';
import { memberById } from './cluster-state';
import type * as wire from './grpc/messages';
import { MEMBERSHIP } from './grpc/proto';
import { protocolVersion, stateFromWire, stateToWire } from './grpc/wire';
import type { MembershipCore } from './membership-core';
import { StateRefusedError, type PushOutcome } from './membership-types';
import { protocolProblem } from './protocol';
import { successionProblem } from './state-succession';
import { saveClusterState } from './state-store';

export class StateSync {
  /** State changes and installs, one at a time. */
  private changes: Promise<unknown> = Promise.resolve();
  private pulling = false;
  private lastPullMs = 0;

  constructor(private readonly core: MembershipCore) {}

  /** Resolves once the changes and installs under way have ended. */
  settled(): Promise<unknown> {
    return this.changes;
  }

  /** Decides a new version (the master), persists it, installs it and pushes it to the members but `skipPush`. */
  change(decide: (state: ClusterState) => ClusterState, skipPush: string | null = null): Promise<ClusterState> {
    const core = this.core;
    return this.oneAtATime(async () => {
      const next = decide(core.current);
      if (next === core.current) return next;
      await saveClusterState(core.options.records, next);
      this.adopt(next);
      core.track(this.pushToMembers(skipPush));
      return next;
    });
  }

  /**
   * Installs a state (and payload) this node asked the master for (a join, a pull) when newer than
   * this node's and a possible successor of it; persists first. The master too: a newer state than
   * its own means it lost its copy (a new data dir). Throws StateRefusedError for one it will not take.
   */
  async install(state: ClusterState, payload: wire.Payload | null, source: string): Promise<void> {
    const core = this.core;
    await this.oneAtATime(async () => {
      const newState = state.version > core.current.version;
      const newPayload = payload !== null && core.payload !== null && payload.version > core.payload.version();
      if (newState) {
        const { self } = core.options;
        if (memberById(state, self.id)?.grpc !== self.grpc) {
          throw new StateRefusedError(
            'not-this-cluster',
            `the cluster state v${state.version} of ${source} does not hold this node, ${self.id} at ${self.grpc}`,
          );
        }
        const problem = successionProblem(core.current, state);
        if (problem !== null)
          throw new StateRefusedError(
            'state-succession',
            `the cluster state of ${source} cannot follow v${core.current.version} here: ${problem}`,
          );
      }
      if (newPayload) {
        const problem = core.payload!.problem(payload.version, payload.data);
        if (problem !== null)
          throw new StateRefusedError(
            'payload-succession',
            `the payload of ${source} cannot follow v${core.payload!.version()} here: ${problem}`,
          );
      }
      if (newState) {
        await saveClusterState(core.options.records, state);
        this.adopt(state);
      }
      if (newPayload) await core.payload!.install(payload.version, payload.data);
    });
  }

  private adopt(state: ClusterState): void {
    const core = this.core;
    core.current = state;
    const ids = new Set(state.members.map((member) => member.id));
    core.liveness.retain(ids);
    core.hintReports.retain(ids);
    if (core.started)
      core.options.logger.info(`cluster: state v${state.version} (${state.members.length} members, ${state.epochs.length} ring epochs)`);
    core.events.emit('state', state);
  }

  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.changes.then(work);
    this.changes = run.catch(() => undefined);
    return run;
  }

  async pushToMembers(skip: string | null): Promise<PushOutcome> {
    const core = this.core;
    const { self } = core.options;
    const request: wire.PushStateRequest = {
      protocol_version: protocolVersion(),
      from: self.id,
      state: stateToWire(core.current),
      payload: this.payloadOut(),
    };
    const targets = core.current.members.filter((member) => member.id !== self.id && member.id !== skip);
    const results = await Promise.allSettled(
      targets.map((member) => core.options.peers.call(member.grpc, MEMBERSHIP.PushState, request, core.callTimeoutMs)),
    );
    const outcome: PushOutcome = { reached: [], missed: [] };
    results.forEach((result, i) => (result.status === 'fulfilled' ? outcome.reached : outcome.missed).push(targets[i]!.id));
    return outcome;
  }

  /** Takes the state and payload of `address`: the master, or another seed for a master that lost its copy. */
  async pull(address: string): Promise<void> {
    const core = this.core;
    this.lastPullMs = Date.now();
    const reply = await core.options.peers.call(
      address,
      MEMBERSHIP.PullState,
      { protocol_version: protocolVersion(), from: core.options.self.id },
      core.callTimeoutMs,
    );
    const source = address === core.masterAddress ? core.masterName() : `the seed at ${address}`;
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
  catchUp(stateVersion: number, payloadVersion: number, seed: string | null): void {
    const core = this.core;
    const behind = stateVersion > core.current.version || (core.payload !== null && payloadVersion > core.payload.version());
    if (!behind || this.pulling || core.closed || Date.now() - this.lastPullMs < core.options.heartbeatIntervalMs) return;
    const address = !core.isMaster
      ? core.masterAddress
      : core.current.version <= 1 && seed !== null && seed !== core.options.self.grpc && core.options.seeds.includes(seed)
        ? seed
        : null;
    if (address === null) return;
    this.pulling = true;
    core.track(
      this.pull(address)
        .catch((error: Error) =>
          core.warnOnce(`pull:${address}:${error.message}`, `cluster: pulling the cluster state from ${address} failed: ${error.message}`),
        )
        .finally(() => (this.pulling = false)),
    );
  }

  payloadOut(): wire.Payload | null {
    return this.core.payload?.current() ?? null;
  }
}
