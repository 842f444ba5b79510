/**
 * Failure detection: a heartbeat every interval from this node to every other member, each waited
 * on up to the failure timeout; an answer marks the member up with its counts, silence for the
 * failure timeout marks it down. A peer's answer naming a newer state or payload starts a pull.
 */
import type { Member } from './cluster-state';
import type * as wire from './grpc/messages';
import { PeerCallError } from './grpc/peers';
import { MEMBERSHIP } from './grpc/proto';
import { memberToWire, protocolVersion, statsFromWire } from './grpc/wire';
import { isVersion, type MembershipCore } from './membership-core';
import { protocolProblem } from './protocol';
import type { StateSync } from './state-sync';

export class FailureDetection {
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly heartbeatsInFlight = new Set<string>();

  constructor(
    private readonly core: MembershipCore,
    private readonly sync: StateSync,
  ) {}

  /** Heartbeats every cluster.heartbeat_interval from now on, the first at once. */
  start(): void {
    this.heartbeatTimer = setInterval(() => this.beat(), this.core.options.heartbeatIntervalMs);
    this.beat();
  }

  stop(): void {
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
  }

  /**
   * Whether `id` is known to be down: silent for the failure timeout, whether heard from since this
   * node started or not (a node just started has heard no one yet, which does not make them down).
   */
  seenDown(id: string, now = Date.now()): boolean {
    const core = this.core;
    const liveness = core.livenessOf(id, now);
    if (liveness.up) return false;
    return liveness.lastHeartbeatMs !== null || (core.startedAtMs !== null && now - core.startedAtMs > core.options.failureTimeoutMs);
  }

  private beat(): void {
    const core = this.core;
    if (core.closed) return;
    for (const member of core.current.members) {
      if (member.id === core.options.self.id || this.heartbeatsInFlight.has(member.id)) continue;
      this.heartbeatsInFlight.add(member.id);
      core.track(this.heartbeat(member).finally(() => this.heartbeatsInFlight.delete(member.id)));
    }
    core.liveness.sweep(Date.now());
  }

  private async heartbeat(member: Member): Promise<void> {
    const core = this.core;
    const request: wire.HeartbeatRequest = {
      protocol_version: protocolVersion(),
      from: memberToWire(core.options.self),
      state_version: core.current.version,
      payload_version: core.payload?.version() ?? 0,
      hints_for: [...(core.options.hintTargets?.() ?? [])],
    };
    let reply: wire.HeartbeatReply;
    try {
      // A heartbeat may take up to the failure timeout: only then does silence mean down.
      reply = await core.options.peers.call(member.grpc, MEMBERSHIP.Heartbeat, request, core.options.failureTimeoutMs);
    } catch (error) {
      if (error instanceof PeerCallError && !error.unreachable)
        core.warnOnce(`refused:${member.id}`, `cluster: node ${member.id} refuses heartbeats: ${error.details}`);
      return;
    }
    const problem = protocolProblem(reply.protocol_version, `node ${member.id} at ${member.grpc}`);
    if (problem !== null) return core.warnOnce(`protocol:${member.id}`, `cluster: ${problem}`);
    if (reply.node_id !== member.id) {
      return core.warnOnce(`identity:${member.id}`, `cluster: ${member.grpc} answers as node ${reply.node_id}, not ${member.id}`);
    }
    if (core.closed) return;
    core.peerMinors.heard(member.id, reply.protocol_version);
    core.liveness.heard(member.id, Date.now(), reply.stats === null ? undefined : statsFromWire(reply.stats));
    if (isVersion(reply.state_version) && isVersion(reply.payload_version))
      this.sync.catchUp(reply.state_version, reply.payload_version, member.grpc);
  }
}
