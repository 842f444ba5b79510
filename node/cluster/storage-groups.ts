/**
 * How a cluster node stores its partitions (storage/segment/segment-keys.ts): the partitions of
 * one piece with the same owners go in one segment, so that a node reads a piece as one segment
 * where it would read a dozen, and a `head` decodes one newest block. Where every member of the
 * piece's epoch owns every partition (replication n over n nodes) the owner set is split in as
 * many shares as owners, by partition, so that a query over one bucket still spreads over every
 * node. The coordinator asks one owner for all of a group's keys (coordinator/key-assignment.ts,
 * with the names this module gives: query-distribution.ts), and a stored key never changes owners
 * (a new ring epoch starts ahead of every stored event), so a read names all of a segment's keys
 * or none. A stored-alone key (negative partition) stays alone.
 */
import type { PartitionKey } from '../../storage/core/partition';
import type { GroupOf } from '../../storage/lifecycle/flusher';
import { storageGroupName } from '../../coordinator/key-assignment';
import type { ClusterState } from './cluster-state';
import { epochAt, type RingEpoch } from './epochs';
import { ownersOf } from './ring';

/** The storage group of a key placed by the ring (partition 0 or above), whose owners are `owners`. */
export function storageGroupNameOf(key: PartitionKey, owners: readonly string[], epochs: readonly RingEpoch[]): string {
  const members = epochAt(epochs, key.bucket).members.length;
  return storageGroupName(key.partition, owners, owners.length >= members ? owners.length : 1);
}

/**
 * A key's storage group (storageGroupNameOf). null (the key is stored alone) for a stored-alone
 * key, a key no epoch places yet, and while `everyMemberGroups()` is false: some member may
 * coordinate as a release before 1.10 (protocol.ts STORAGE_GROUP_MINOR) did, asking two owners
 * for parts of one group.
 */
export function storageGroupOf(
  state: () => Pick<ClusterState, 'epochs'>,
  replicationFactor: number,
  everyMemberGroups: () => boolean,
): GroupOf {
  return (key: PartitionKey) => {
    const { epochs } = state();
    if (key.partition < 0 || epochs.every((epoch) => epoch.fromMicros > key.bucket) || !everyMemberGroups()) return null;
    return storageGroupNameOf(key, ownersOf(key, epochs, replicationFactor), epochs);
  };
}
