/**
 * Partition keys grouped by the nodes that own them (ring.ts): a write goes to every owner of its
 * keys. (A read asks each key of exactly one owner: coordinator/key-assignment.ts.)
 */
import type { PartitionKey } from '../../storage/core/partition';
import type { RingEpoch } from './epochs';
import { ownersOf } from './ring';

/** For a write: each owner's keys (a key of `replicationFactor` owners is in as many lists), nodes in order of first appearance. */
export function keysByOwner(
  keys: readonly PartitionKey[],
  epochs: readonly RingEpoch[],
  replicationFactor: number,
): Map<string, PartitionKey[]> {
  const byNode = new Map<string, PartitionKey[]>();
  for (const key of keys) {
    for (const node of ownersOf(key, epochs, replicationFactor)) {
      const list = byNode.get(node);
      if (list === undefined) byNode.set(node, [key]);
      else list.push(key);
    }
  }
  return byNode;
}
