/**
 * How a cluster node stores its partitions (storage/segment/segment-keys.ts): the partitions of
 * one piece with the same owners (and the same share of them, storageGroupName) go in one
 * segment, so that a node reads a piece as one segment where it would read a dozen, and a `head`
 * decodes one newest block. The coordinator asks one owner for all of such a group's keys
 * (coordinator/key-assignment.ts), and a stored key never changes owners (a new ring epoch starts
 * ahead of every stored event), so a read names all of a segment's keys or none. A stored-alone
 * key (negative partition) stays alone.
 */
import type { PartitionKey } from '../../storage/core/partition';
import type { GroupOf } from '../../storage/lifecycle/flusher';
import { storageGroupName } from '../../coordinator/key-assignment';
import type { ClusterState } from './cluster-state';
import { ownersOf } from './ring';

/**
 * A key's storage group: its owners' ids, sorted, and its partition modulo their number
 * (coordinator/key-assignment.ts storageGroupName, which the coordinator assigns keys by). null
 * (the key is stored alone) for a stored-alone key, a key no epoch places yet, and while
 * `everyMemberGroups()` is false: some member may coordinate as a release before 1.10
 * (protocol.ts STORAGE_GROUP_MINOR) did, asking two owners for parts of one group.
 */
export function storageGroupOf(
  state: () => Pick<ClusterState, 'epochs'>,
  replicationFactor: number,
  everyMemberGroups: () => boolean,
): GroupOf {
  return (key: PartitionKey) => {
    const { epochs } = state();
    if (key.partition < 0 || epochs.every((epoch) => epoch.fromMicros > key.bucket) || !everyMemberGroups()) return null;
    return storageGroupName(key.partition, ownersOf(key, epochs, replicationFactor));
  };
}
