/**
 * This node as a member of a cluster (cluster mode is on exactly when `cluster.seeds` is set): its
 * gRPC server and clients to the peers, membership, the hints it holds for down owners and the
 * marks of hints applied here, and the metadata store replicated from the master. The data path
 * services (writes, hint replay, shard queries) are added to the same gRPC server.
 */
import type { Logger } from '../core/logger';
import type { Settings } from '../config/settings';
import { splitsOf } from '../../storage/core/partition';
import type { StorageEngine } from '../../storage/engine';
import type { MetadataStore } from '../metadata/store';
import { CatchUp } from './catch-up';
import { memberById, type ClusterState, type Member, type StoredAlone } from './cluster-state';
import { setApartStoredAlone } from './stored-alone';
import { storageGroupOf } from './storage-groups';
import { STORAGE_GROUP_MINOR } from './protocol';
import { PeerClients } from './grpc/peers';
import { FragmentStreams } from './fragment-streams';
import { GrpcServer } from './grpc/server';
import { proofSender } from './grpc/proof-sender';
import { SecretGuard } from './grpc/secret-guard';
import { TlsRefusals } from './grpc/tls-refusals';
import type { TlsMaterial } from '../core/tls-material';
import { wellFormedDetails } from './grpc/status-details';
import { undecodableGuard } from './grpc/undecodable';
import { AppliedShares } from './applied-shares';
import { AppliedHints, HintStore } from './hints';
import { Membership } from './membership';
import { MetadataPayload } from './metadata-payload';
import { PeerHttp } from './peer-http';
import { cachedStats, engineNodeStats } from './node-stats';
import { loadClusterState } from './state-store';

/**
 * Before a node's first join, what it stored alone is set apart under keys of its own
 * (stored-alone.ts), to be recorded in the cluster state with the join; null when it holds none
 * or has been a member already.
 */
async function storedAloneBeforeFirstJoin(engine: StorageEngine, nodeId: string, logger: Logger): Promise<StoredAlone | null> {
  if ((await loadClusterState(engine.records('cluster'))).version > 0) return null;
  const alone = await setApartStoredAlone(engine, nodeId);
  if (alone !== null) {
    const held = engine.heldUnder(alone.partition)!;
    logger.info(
      `cluster: node ${nodeId} keeps the ${held.events} events it stored alone (${alone.indexes.length} index(es), ` +
        `${new Date(alone.fromMicros / 1000).toISOString()} to ${new Date(alone.toMicros / 1000).toISOString()}) as its own: ` +
        'every node answers for them through it; new events are placed over the cluster',
    );
  }
  return alone;
}

/**
 * The check of cluster.secret on this node's gRPC port and the proof on its calls; with no secret,
 * neither, and a warning: the port then takes calls from anyone who reaches it.
 */
function secretGuardOf(settings: Settings, logger: Logger): SecretGuard | null {
  const { secret, grpcListen } = settings.cluster;
  if (secret !== null) return new SecretGuard(secret, logger);
  logger.warn(
    `cluster.secret is not set: anyone who can reach ${grpcListen} can join the cluster, write and read its data and change its metadata; ` +
      'set cluster.secret (a long random value, the same on every node) or keep the port on a network only the nodes reach',
  );
  return null;
}

/** One line each time a peer comes back or goes down: membership reports each change once. */
function logPeerChanges(membership: Membership, logger: Logger): void {
  const named = (id: string): string => {
    const member = membership.state().members.find((each) => each.id === id);
    return member === undefined ? `node ${id}` : `node ${id} at ${member.grpc}`;
  };
  membership.on('member-up', (id) => logger.info(`cluster: ${named(id)} is up`));
  membership.on('member-down', (id) => logger.warn(`cluster: ${named(id)} is down: not heard from within cluster.failure_timeout`));
}

/**
 * Hints held for a forgotten node are given up: nothing will take them (a new node under its id
 * owns none of the keys they hold), and they would keep such a node catching up.
 */
function dropHintsOfForgotten(membership: Membership, hints: HintStore, logger: Logger): void {
  let dropping = Promise.resolve();
  const drop = (state: ClusterState): void => {
    for (const { id } of state.forgotten) {
      if (memberById(state, id) !== undefined || hints.pending(id) === 0) continue;
      dropping = dropping
        .then(() => hints.dropAll(id))
        .then((count) => {
          if (count > 0) logger.info(`cluster: gave up ${count} hints for node ${id}, which was forgotten`);
        })
        .catch((error: Error) => logger.error(`cluster: giving up the hints for the forgotten node ${id} failed: ${error.message}`));
    }
  };
  membership.on('state', drop);
  drop(membership.state());
}

export class ClusterNode {
  private constructor(
    readonly self: Member,
    readonly server: GrpcServer,
    readonly peers: PeerClients,
    /** The long-lived ShardQuery.Fragments calls to the peers, over `peers`' channels. */
    readonly fragments: FragmentStreams,
    readonly membership: Membership,
    readonly hints: HintStore,
    readonly appliedHints: AppliedHints,
    readonly appliedShares: AppliedShares,
    readonly metadata: MetadataPayload,
    /** Calls to the other members' HTTP API. */
    readonly http: PeerHttp,
    /** Whether a node may be asked for its keys, this one included. */
    readonly catchUp: CatchUp,
    /** The check of cluster.secret on every call served; null when no secret is set. */
    readonly secretGuard: SecretGuard | null,
    /** Connections refused in their TLS handshake (with `tls.enabled`). */
    readonly tlsRefusals: TlsRefusals,
  ) {}

  /**
   * Opens the cluster side of a node whose storage and metadata are open. `addServices` adds the
   * data path's services before the server listens; then the node joins (or rejoins) the cluster.
   * Throws the membership's errors (a taken node id, an unreachable master) for the caller to exit on.
   */
  static async start(
    settings: Settings,
    engine: StorageEngine,
    metadata: MetadataStore,
    logger: Logger,
    tls: TlsMaterial | null,
    addServices: (node: ClusterNode) => void = () => undefined,
  ): Promise<ClusterNode> {
    const { cluster } = settings;
    const storedAlone = await storedAloneBeforeFirstJoin(engine, cluster.nodeId, logger);
    const http = new PeerHttp(tls, { nodeId: cluster.nodeId, secret: cluster.secret });
    const self: Member = {
      id: cluster.nodeId,
      // An IPv6 host in brackets, so that a peer can put the address in a URL.
      http: `${settings.listen.host.includes(':') ? `[${settings.listen.host}]` : settings.listen.host}:${settings.listen.port}`,
      grpc: cluster.grpcListen,
      role: 'all',
    };
    const secretGuard = secretGuardOf(settings, logger);
    const tlsRefusals = new TlsRefusals(logger);
    // The statuses' text first, so it covers what the others send; a request that did not decode is refused once the proof is taken.
    const server = new GrpcServer({
      interceptors: [wellFormedDetails, ...(secretGuard === null ? [] : [secretGuard.interceptor]), undecodableGuard],
      tls,
      onTlsRefused: (peer, reason) => tlsRefusals.refused(peer, reason),
    });
    const peers = new PeerClients(
      cluster.heartbeatIntervalMs,
      cluster.secret === null ? [] : [proofSender(cluster.secret, cluster.nodeId)],
      tls,
    );
    const hints = await HintStore.open(engine.records('hints'));
    const membership = new Membership({
      self,
      seeds: cluster.seeds,
      records: engine.records('cluster'),
      server,
      peers,
      heartbeatIntervalMs: cluster.heartbeatIntervalMs,
      failureTimeoutMs: cluster.failureTimeoutMs,
      bucketSpanMicros: cluster.bucketSpanMs * 1000,
      storedAlone,
      stats: cachedStats(() => engineNodeStats(engine), cluster.heartbeatIntervalMs / 2),
      hintTargets: () => [...hints.pendingByTarget().keys()],
      logger,
    });
    logPeerChanges(membership, logger);
    // New events' keys split a bucket wherever a ring epoch starts inside it.
    const bucketSpanMicros = cluster.bucketSpanMs * 1000;
    const applySplits = (state: ClusterState): void =>
      engine.setSplits(
        splitsOf(
          state.epochs.map((epoch) => epoch.fromMicros),
          bucketSpanMicros,
        ),
      );
    membership.on('state', applySplits);
    engine.setGrouping(
      storageGroupOf(
        () => membership.state(),
        cluster.replicationFactor,
        () => membership.everyMemberSpeaks(STORAGE_GROUP_MINOR),
      ),
    );
    const payload = new MetadataPayload(metadata);
    membership.carryPayload(payload);
    const node = new ClusterNode(
      self,
      server,
      peers,
      new FragmentStreams(peers),
      membership,
      hints,
      await AppliedHints.open(engine.records('applied-hints')),
      new AppliedShares(engine.records('applied-shares')),
      payload,
      http,
      new CatchUp({ self: self.id, hints, membership, failureTimeoutMs: cluster.failureTimeoutMs, stallMs: cluster.writeTimeoutMs }),
      secretGuard,
      tlsRefusals,
    );
    addServices(node);
    try {
      await server.listen(cluster.grpcListen);
      await membership.start();
      // A state kept from before the start is installed without an event.
      applySplits(membership.state());
      node.catchUp.started();
      node.catchUp.watchStalls(Math.min(cluster.heartbeatIntervalMs, 500));
      dropHintsOfForgotten(membership, hints, logger);
    } catch (error) {
      await node.close();
      throw error;
    }
    logger.info(
      `cluster: node ${self.id} at ${self.grpc}; ${membership.isMaster ? 'it is the master' : `the master is at ${membership.masterAddress}`}`,
    );
    return node;
  }

  /** Stops heartbeats and the server (calls in flight get `graceMs`), and closes the clients. */
  async close(graceMs = 1000): Promise<void> {
    this.catchUp.close();
    await this.membership.close();
    await this.server.close(graceMs);
    this.fragments.close();
    this.peers.close();
    this.http.close();
  }
}
