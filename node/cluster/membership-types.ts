/** The shapes membership shares with its callers: options, views, events, the replicated payload and its timings. */
import type { NodeRecords } from '../../storage/node-records';
import type { Logger } from '../core/logger';
import type { ClusterState, Member, StoredAlone } from './cluster-state';
import type { PeerClients } from './grpc/peers';
import type { GrpcServer } from './grpc/server';
import type { Liveness } from './liveness';
import type { NodeStats } from './node-stats';

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
