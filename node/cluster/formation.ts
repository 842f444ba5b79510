/**
 * How this node becomes a member and how the master decides who is one: founding or forming a new
 * cluster, joining through the master, taking the stored state on a restart, and the master's
 * decisions (a join, a remove, a forget) with the ring epoch each starts.
 */
import { status } from '@grpc/grpc-js';
import { setTimeout as delay } from 'timers/promises';
import {
  forgetProblem,
  foundCluster,
  memberById,
  removalEpoch,
  removeProblem,
  sameMember,
  withForgotten,
  withFormed,
  withJoined,
  withRemoved,
  type ClusterState,
} from './cluster-state';
import { CURRENT_LAYOUT, epochStartClearOf, nextEpochStart, type EpochLayout } from './epochs';
import {
  ForgetRefusedError,
  JoinRefusedError,
  MasterUnavailableError,
  NodeIdTakenError,
  NotMasterError,
  RemoveRefusedError,
} from './errors';
import type { FailureDetection } from './failure-detection';
import { PeerCallError } from './grpc/peers';
import { MEMBERSHIP } from './grpc/proto';
import { memberToWire, protocolVersion, stateFromWire, storedAloneToWire } from './grpc/wire';
import type { MembershipCore } from './membership-core';
import { DEFAULT_FORMATION_TIMEOUT_MS, EPOCH_LEAD_HEARTBEATS } from './membership-types';
import { formatVersion, LAYOUT_MINOR, protocolProblem } from './protocol';
import type { StateSync } from './state-sync';
import { loadClusterState } from './state-store';

export class ClusterFormation {
  private formationTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly core: MembershipCore,
    private readonly sync: StateSync,
    private readonly detection: FailureDetection,
  ) {}

  /**
   * Takes this node into the cluster: the master founds the cluster or takes its stored state;
   * another node joins through the master, or on a restart pulls the latest state (going on with
   * its stored copy while the master is down).
   */
  async enter(): Promise<void> {
    const core = this.core;
    const { self } = core.options;
    core.current = await loadClusterState(core.options.records);
    const held = memberById(core.current, self.id);
    if (held !== undefined && held.grpc !== self.grpc) throw new NodeIdTakenError(self.id, held.grpc, self.grpc);
    if (core.isMaster) {
      const alone = core.options.storedAlone ?? null;
      await this.sync.change((state) =>
        state.version === 0
          ? foundCluster(self, core.options.seeds, alone)
          : withJoined(state, self, this.epochStart(), this.layoutNow(state), alone),
      );
      if (core.current.forming.length > 0) this.awaitFormation();
    } else if (held !== undefined && sameMember(held, self)) {
      await this.sync
        .pull(core.masterAddress)
        .catch((error: Error) =>
          core.options.logger.warn(
            `cluster: going on with the stored cluster state v${core.current.version}; ${core.masterName()} did not answer (${error instanceof PeerCallError ? error.plainDetails : error.message})`,
          ),
        );
    } else {
      await this.join();
    }
  }

  /** On the master: takes `id` out of future placement (a new ring epoch without it, its id in `removed`). */
  remove(id: string): Promise<ClusterState> {
    const core = this.core;
    if (!core.isMaster) return Promise.reject(new NotMasterError(core.masterAddress, `removing node ${id}`));
    return this.sync.change((state) => {
      const problem = removeProblem(state, id);
      if (problem !== null) throw new RemoveRefusedError(problem, id);
      return withRemoved(state, id, this.epochStart(), this.layoutNow(state));
    });
  }

  /** On the master: forgets a removed node that is down, giving up its data (withForgotten). */
  forget(id: string): Promise<ClusterState> {
    const core = this.core;
    if (!core.isMaster) return Promise.reject(new NotMasterError(core.masterAddress, `forgetting node ${id}`));
    return this.sync.change((state) => {
      const problem = forgetProblem(state, id, Date.now() * 1000) ?? (this.detection.seenDown(id) ? null : 'up');
      if (problem === 'removal-pending') {
        const removal = removalEpoch(state, id);
        throw new ForgetRefusedError(
          problem,
          id,
          removal === undefined ? undefined : new Date(Math.floor(removal.fromMicros / 1000)).toISOString(),
        );
      }
      if (problem !== null) throw new ForgetRefusedError(problem, id);
      return withForgotten(state, id);
    });
  }

  /** Stops waiting for the seeds of a forming cluster. */
  stop(): void {
    if (this.formationTimer !== null) clearTimeout(this.formationTimer);
  }

  /** On the master of a forming cluster: forms it without the seeds that have not joined in time (counted from this start). */
  private awaitFormation(): void {
    const core = this.core;
    const waitMs = core.options.formationTimeoutMs ?? DEFAULT_FORMATION_TIMEOUT_MS;
    core.options.logger.info(
      `cluster: forming; waiting up to ${waitMs} ms for the seeds at ${core.current.forming.join(', ')} (ingest is refused until then)`,
    );
    this.formationTimer = setTimeout(() => {
      const missing = core.current.forming;
      if (missing.length === 0 || core.closed) return;
      core.track(
        this.sync
          .change(withFormed)
          .then(() =>
            core.options.logger.warn(
              `cluster: formed without the seeds at ${missing.join(', ')} (not joined within ${waitMs} ms); they join in a later ring epoch`,
            ),
          ),
      );
    }, waitMs);
    this.formationTimer.unref();
  }

  private async join(): Promise<void> {
    const core = this.core;
    const { self, logger } = core.options;
    const alone = core.options.storedAlone ?? null;
    const deadline = Date.now() + core.joinTimeoutMs;
    let waitLogged = false;
    for (;;) {
      try {
        const reply = await core.options.peers.call(
          core.masterAddress,
          MEMBERSHIP.Join,
          { protocol_version: protocolVersion(), node: memberToWire(self), stored_alone: alone === null ? null : storedAloneToWire(alone) },
          core.callTimeoutMs,
        );
        const problem = protocolProblem(reply.protocol_version, `the master at ${core.masterAddress}`);
        if (problem !== null) throw new JoinRefusedError('protocol-version', problem);
        const state = stateFromWire(reply.state);
        // A master of a release before 1.4 drops what this node stored alone: queries would never find it.
        if (alone !== null && !state.storedAlone.some((each) => each.node === self.id)) {
          throw new JoinRefusedError(
            'protocol-version',
            `the master at ${core.masterAddress} did not take in the ${alone.indexes.length} index(es) this node stored alone (protocol ${formatVersion(reply.protocol_version!)}; 1.4 or later keeps them): upgrade the master first`,
          );
        }
        await this.sync.install(state, reply.payload, core.masterName());
        return;
      } catch (error) {
        if (!(error instanceof PeerCallError)) throw error;
        if (!error.unreachable) throw this.joinRefusal(error);
        if (core.closed || Date.now() >= deadline) {
          throw new MasterUnavailableError(
            core.masterAddress,
            core.master().id,
            `node ${self.id} cannot join the cluster`,
            error.plainDetails,
          );
        }
        if (!waitLogged)
          logger.warn(
            `cluster: waiting up to ${core.joinTimeoutMs} ms for ${core.masterName()} to answer the join (${error.plainDetails})`,
          );
        waitLogged = true;
        await delay(Math.min(core.options.heartbeatIntervalMs, 1000), undefined, { signal: core.stopWaiting.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  /** The typed error for a join the master refused. */
  private joinRefusal(error: PeerCallError): Error {
    const { self } = this.core.options;
    if (error.reason === 'node-id-taken') return new NodeIdTakenError(self.id, error.facts['held-at'] ?? 'another address', self.grpc);
    if (
      error.reason === 'not-master' ||
      error.reason === 'protocol-version' ||
      error.reason === 'address-taken' ||
      error.reason === 'invalid-member'
    ) {
      return new JoinRefusedError(error.reason, error.details);
    }
    if (error.code === status.UNAUTHENTICATED) {
      return new JoinRefusedError(
        'unauthenticated',
        `node ${self.id} cannot join the cluster: the master at ${error.address} ${error.details}`,
      );
    }
    return new Error(`node ${self.id} cannot join the cluster: ${error.message}`);
  }

  /** Where a ring epoch decided now starts (epochs.ts epochStartClearOf), over the newest event any member holds. */
  epochStart(): number {
    const core = this.core;
    const soonest = nextEpochStart(Date.now() * 1000, EPOCH_LEAD_HEARTBEATS * core.options.heartbeatIntervalMs * 1000);
    let newest = core.options.stats().newestEventMicros ?? 0;
    // Every member's last known counts, whether it is up now or not.
    for (const member of core.current.members)
      newest = Math.max(newest, core.liveness.of(member.id, Date.now()).stats?.newestEventMicros ?? 0);
    const start = epochStartClearOf(soonest, newest, core.options.bucketSpanMicros);
    if (start !== soonest) {
      core.options.logger.warn(
        `cluster: the new ring epoch starts at ${new Date(start / 1000).toISOString()}, not within seconds: ` +
          `events timed up to ${new Date(newest / 1000).toISOString()} are stored already, and their buckets keep their owners`,
      );
    }
    return start;
  }

  /**
   * The layout of a ring epoch decided now: this release's, once every other member (and
   * `joining`) has been heard speaking a protocol that reads layouts; the ring until then (a
   * member of an older release would place a laid-out epoch on the ring, unlike the others). A
   * removed node not heard since this node started is left out: taken out for good, it would
   * otherwise keep every later epoch on the ring.
   */
  layoutNow(state: ClusterState, joining?: string): EpochLayout | null {
    const core = this.core;
    const others = state.members
      .map((member) => member.id)
      .filter((id) => id !== core.options.self.id && id !== joining && !(state.removed.includes(id) && !core.peerMinors.has(id)));
    if (joining !== undefined) others.push(joining);
    return core.peerMinors.allAtLeast(others, LAYOUT_MINOR) ? CURRENT_LAYOUT : null;
  }
}
