/** Between the cluster's own types and proto/trawl.proto's messages; what comes in is checked. */
import { parseClusterState, parseMember, type ClusterState, type Member, type StoredAlone } from '../cluster-state';
import type { NodeStats } from '../node-stats';
import { PROTOCOL_VERSION } from '../protocol';
import type * as wire from './messages';

export const protocolVersion = (): wire.ProtocolVersion => ({ major: PROTOCOL_VERSION.major, minor: PROTOCOL_VERSION.minor });

export const memberToWire = (member: Member): wire.Member => ({ id: member.id, http: member.http, grpc: member.grpc, role: member.role });

export function memberFromWire(member: wire.Member | null, where: string): Member {
  if (member === null) throw new Error(`${where} is missing`);
  return parseMember(member, where);
}

export function stateToWire(state: ClusterState): wire.ClusterState {
  return {
    version: state.version,
    members: state.members.map(memberToWire),
    epochs: state.epochs.map((epoch) => ({
      epoch: epoch.epoch,
      from_micros: epoch.fromMicros,
      members: epoch.members,
      layout: epoch.layout ?? '',
    })),
    removed: state.removed,
    forming: state.forming,
    stored_alone: state.storedAlone.map(storedAloneToWire),
    forgotten: state.forgotten.map((each) => ({ id: each.id, through_epoch: each.throughEpoch, stored_alone: each.storedAlone })),
  };
}

export function storedAloneToWire(alone: StoredAlone): wire.StoredAlone {
  return { node: alone.node, partition: alone.partition, indexes: alone.indexes, from_micros: alone.fromMicros, to_micros: alone.toMicros };
}

/** As received: parseClusterState or parseJoinStoredAlone checks it. */
export function storedAloneFromWire(alone: wire.StoredAlone): Record<keyof StoredAlone, unknown> {
  return { node: alone.node, partition: alone.partition, indexes: alone.indexes, fromMicros: alone.from_micros, toMicros: alone.to_micros };
}

/** Throws naming the field that is wrong. */
export function stateFromWire(state: wire.ClusterState | null): ClusterState {
  if (state === null) throw new Error('the state is missing');
  return parseClusterState({
    version: state.version,
    members: state.members,
    // An empty layout is an epoch without one (decided by, or sent from, a release before layouts).
    epochs: state.epochs.map((epoch) => ({
      epoch: epoch.epoch,
      fromMicros: epoch.from_micros,
      members: epoch.members,
      ...(epoch.layout ? { layout: epoch.layout } : {}),
    })),
    removed: state.removed,
    forming: state.forming ?? [],
    storedAlone: (state.stored_alone ?? []).map(storedAloneFromWire),
    forgotten: (state.forgotten ?? []).map((each) => ({ id: each.id, throughEpoch: each.through_epoch, storedAlone: each.stored_alone })),
  });
}

export function statsToWire(nodeId: string, stats: NodeStats): wire.NodeStats {
  return {
    node_id: nodeId,
    events: stats.events,
    segments: stats.segments,
    buffered_events: stats.bufferedEvents,
    buffered_bytes: stats.bufferedBytes,
    storage_bytes: stats.storageBytes,
    indexes: stats.indexes,
    newest_event_micros: stats.newestEventMicros ?? 0,
  };
}

export function statsFromWire(stats: wire.NodeStats): NodeStats {
  return {
    events: stats.events,
    segments: stats.segments,
    bufferedEvents: stats.buffered_events,
    bufferedBytes: stats.buffered_bytes,
    storageBytes: stats.storage_bytes,
    indexes: [...stats.indexes].sort(),
    newestEventMicros: stats.newest_event_micros === undefined || stats.newest_event_micros <= 0 ? null : stats.newest_event_micros,
  };
}
