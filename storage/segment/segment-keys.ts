/**
 * The partition keys a segment holds. A node alone has one partition, and its segments hold one
 * key each. A cluster node holds several partitions of each piece of a bucket; stored one segment
 * per key, a piece would be read as a dozen small segments where a node alone reads one. So a
 * cluster node stores together the partitions of a piece that have the same owners (its storage
 * group, given by the node: StorageEngine.setGrouping), and such a segment lists them in
 * `partitions`. A coordinator asks each owner for whole groups (coordinator/key-assignment.ts),
 * so a node is asked for all of a segment's keys or for none of them. A row does not record its
 * partition: a read that names only some of a segment's keys cannot be answered exactly, and is
 * refused (PartialSegmentError) rather than counted wrong.
 */
import { keyString } from '../core/partition';
import type { SegmentHeader } from './header';

type Keyed = Pick<SegmentHeader, 'index' | 'bucket' | 'partition' | 'partitions'>;

/** The segment's partitions, ascending. */
export function partitionsOf(header: Keyed): readonly number[] {
  return header.partitions ?? [header.partition];
}

/** The segment's partition keys (core/partition.ts keyString). */
export function keyStringsOf(header: Keyed): string[] {
  return partitionsOf(header).map((partition) => keyString({ index: header.index, bucket: header.bucket, partition }));
}

/** How many of a segment's keys a read names: all, none or only some of them. */
export type KeyCoverage = 'all' | 'none' | 'some';

export function keyCoverage(keys: readonly string[], asked: ReadonlySet<string>): KeyCoverage {
  let found = 0;
  for (const key of keys) if (asked.has(key)) found++;
  return found === 0 ? 'none' : found === keys.length ? 'all' : 'some';
}

/**
 * Whether a read that names `asked` takes a segment whose keys are `segmentKeys` (keyStringsOf):
 * true for all of them, false for none; naming only some of them is refused (PartialSegmentError).
 */
export function askedWhole(header: SegmentHeader, segmentKeys: readonly string[], asked: ReadonlySet<string>): boolean {
  if (segmentKeys.length === 1) return asked.has(segmentKeys[0]!);
  const coverage = keyCoverage(segmentKeys, asked);
  if (coverage === 'some') throw new PartialSegmentError(header);
  return coverage === 'all';
}

/** A read named some of a segment's keys but not all: its rows cannot be told apart by partition. */
export class PartialSegmentError extends Error {
  constructor(header: Pick<SegmentHeader, 'id' | 'index' | 'bucket' | 'partitions' | 'partition'>) {
    super(
      `segment ${header.id} holds partitions ${partitionsOf(header).join(', ')} of index ${header.index} at ` +
        `${new Date(header.bucket / 1000).toISOString()} together, and the read named only some of them: ` +
        'a node is asked for all the keys of a storage group or none (did cluster.replication_factor change?)',
    );
    this.name = 'PartialSegmentError';
  }
}

/** What compaction merges: the segments of one key, or of one storage group of one piece. */
export function compactionKeyOf(header: Pick<SegmentHeader, 'index' | 'bucket' | 'partition' | 'group'>): string {
  return header.group === undefined ? keyString(header) : `${header.index}|${header.bucket}|g:${header.group}`;
}

/** The sorted union of the segments' partitions: a merge's output holds every input's. */
export function unionOfPartitions(headers: readonly Keyed[]): number[] {
  const all = new Set<number>();
  for (const header of headers) for (const partition of partitionsOf(header)) all.add(partition);
  return [...all].sort((a, b) => a - b);
}
