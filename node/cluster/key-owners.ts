/**
 * Partition keys grouped by the nodes that own them (ring.ts): a write goes to every owner of its
 * keys, a read asks each key of exactly one owner.
 */
import type { PartitionKey } from '../../storage/partition';
import type { RingEpoch } from './epochs';
import { ownersOf } from './ring';

/** For a write: each owner's keys (a key of `replicationFactor` owners is in as many lists), nodes in order of first appearance. */
export function keysByOwner(keys: readonly PartitionKey[], epochs: readonly RingEpoch[], replicationFactor: number): Map<string, PartitionKey[]> {
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

export interface ReadAssignment {
  /** The keys each node is asked for. */
  byNode: Map<string, PartitionKey[]>;
  /** Keys none of whose owners may be asked: an answer without them is partial. */
  unowned: PartitionKey[];
}

/**
 * For a query: each key asked of exactly one owner that `usable(node, key)` allows (a live node,
 * not catching up on hints for the key), spread over the replicas: the usable owner given the
 * fewest keys so far, the earlier in ring order on a tie (the primary first). Deterministic for
 * the same arguments. To retry a failed node's keys, assign them again with that node unusable.
 */
export function assignReads(
  keys: readonly PartitionKey[],
  epochs: readonly RingEpoch[],
  replicationFactor: number,
  usable: (node: string, key: PartitionKey) => boolean,
): ReadAssignment {
  const byNode = new Map<string, PartitionKey[]>();
  const unowned: PartitionKey[] = [];
  for (const key of keys) {
    let chosen: PartitionKey[] | undefined;
    let chosenNode: string | undefined;
    for (const node of ownersOf(key, epochs, replicationFactor)) {
      if (!usable(node, key)) continue;
      const list = byNode.get(node);
      const load = list === undefined ? 0 : list.length;
      if (chosenNode === undefined || load < (chosen === undefined ? 0 : chosen.length)) {
        chosenNode = node;
        chosen = list;
      }
    }
    if (chosenNode === undefined) unowned.push(key);
    else if (chosen === undefined) byNode.set(chosenNode, [key]);
    else chosen.push(key);
  }
  return { byNode, unowned };
}
