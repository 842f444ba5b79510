/**
 * The write path of a node in a cluster, put together: the ShardWrite service (what owners do),
 * the router the ingest routes write through, hint replay, and the metrics of all three and of
 * every call to a peer.
 */
import type { StorageEngine } from '../../storage/engine';
import type { Logger } from '../core/logger';
import type { Settings } from '../config/settings';
import { ClusterMetrics, type Metrics } from '../metrics/metrics';
import type { ClusterNode } from './cluster-node';
import { callOutcome } from './grpc/call-observer';
import { HintReplayer, testReplayRate } from './hint-replay';
import { addShardWriteService } from './shard-write';
import { ShareFloors } from './share-floors';
import { WriteRouter } from './write-router';

export interface WritePathOptions {
  engine: StorageEngine;
  /** The node's live settings. */
  settings: () => Settings;
  metrics: Metrics;
  logger: Logger;
  /** Where a gRPC handler's unexpected failure is logged. */
  onFailure: (error: Error) => void;
}

export class ClusterWritePath {
  private constructor(
    readonly router: WriteRouter,
    private readonly replayer: HintReplayer,
  ) {}

  /** Adds the service to the node's server (before it listens) and starts hint replay. */
  static attach(node: ClusterNode, options: WritePathOptions): ClusterWritePath {
    const { engine, settings, logger } = options;
    const holdersByTarget = (): Map<string, number> => {
      const holders = new Map<string, number>();
      for (const target of new Set([...node.hints.pendingByTarget().keys(), ...node.membership.hintReports.targets()])) {
        holders.set(target, (node.hints.pending(target) > 0 ? 1 : 0) + node.membership.hintReports.holdersOf(target).length);
      }
      return holders;
    };
    const metrics = new ClusterMetrics(options.metrics.registry, {
      pendingByTarget: () => node.hints.pendingByTarget(),
      pendingBytes: (target) => node.hints.pendingBytes(target),
      holdersByTarget,
    });
    node.peers.observe((call) => metrics.call(call.service, call.method, callOutcome(call.code), call.seconds));
    node.membership.refusals.observe((method, reason) => metrics.peerRefusals.inc({ method, reason }));
    node.secretGuard?.observe((service, method, reason) => metrics.unauthenticated.inc({ service, method, reason }));
    node.tlsRefusals.observe(() => metrics.tlsRefused.inc());
    const maxBufferedEvents = (): number => settings().ingest.maxBufferedEvents;
    addShardWriteService(node.server, {
      self: node.self.id,
      membership: node.membership,
      replicationFactor: settings().cluster.replicationFactor,
      engine,
      appliedHints: node.appliedHints,
      appliedShares: node.appliedShares,
      maxBufferedEvents,
      metrics,
      logger,
      onFailure: options.onFailure,
    });
    const floors = new ShareFloors(node.hints);
    const router = new WriteRouter({
      self: node.self.id,
      membership: node.membership,
      peers: node.peers,
      hints: node.hints,
      floors,
      engine,
      replicationFactor: settings().cluster.replicationFactor,
      maxBufferedEvents,
      writeTimeoutMs: () => settings().cluster.writeTimeoutMs,
      metrics,
    });
    const replayer = new HintReplayer({
      self: node.self.id,
      hints: node.hints,
      floors,
      membership: node.membership,
      peers: node.peers,
      metrics,
      logger,
      checkIntervalMs: settings().cluster.heartbeatIntervalMs,
      bytesPerSecond: testReplayRate(),
    });
    replayer.start();
    return new ClusterWritePath(router, replayer);
  }

  /** Stops hint replay; call before the node's clients close. */
  async close(): Promise<void> {
    await this.replayer.close();
  }
}
