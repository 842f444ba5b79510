/**
 * A fragment's partition keys on the wire as runs (proto/trawl.proto KeyRun): a run stands for
 * every key of its index with one of its buckets and one of its partitions. A node answers for
 * the same few partitions of each bucket of a long range, so a week of hour buckets goes out as
 * a few runs instead of thousands of strings, which the caller would encode and the callee decode
 * and check one by one.
 */
import { isStoredIndexName } from '../../storage/core/event';
import { keyString, parseKeyString } from '../../storage/core/partition';
import type { KeyRun } from './grpc/messages';

/** The runs of `keys` (as storage/core/partition.ts keyString writes them): exactly those keys. */
export function keysToRuns(keys: Iterable<string>): KeyRun[] {
  // index -> bucket -> its partitions
  const byBucket = new Map<string, Map<number, number[]>>();
  for (const key of keys) {
    const { index, bucket, partition } = parseKeyString(key);
    let buckets = byBucket.get(index);
    if (buckets === undefined) byBucket.set(index, (buckets = new Map()));
    const partitions = buckets.get(bucket);
    if (partitions === undefined) buckets.set(bucket, [partition]);
    else if (!partitions.includes(partition)) partitions.push(partition);
  }
  // The buckets of an index with the same partitions make one run.
  const runs: KeyRun[] = [];
  for (const [index, buckets] of byBucket) {
    const bySet = new Map<string, KeyRun>();
    for (const [bucket, partitions] of buckets) {
      partitions.sort((a, b) => a - b);
      const set = partitions.join(',');
      const run = bySet.get(set);
      if (run === undefined) bySet.set(set, { index, buckets: [bucket], partitions });
      else run.buckets.push(bucket);
    }
    runs.push(...bySet.values());
  }
  return runs;
}

/** The most digits a key's bucket may have (as `index|bucket|partition` keys are checked). */
const MAX_BUCKET = 1e16;

/**
 * The keys of `runs`, checked as a client's input is: a stored index name, whole buckets and
 * partitions in range, and at most `maxKeys` keys in all (counted before any is made). Throws
 * naming what is wrong.
 */
export function keysFromRuns(runs: readonly KeyRun[], maxKeys: number): string[] {
  let count = 0;
  for (const run of runs) {
    if (!isStoredIndexName(run.index)) throw new Error(`key run index ${JSON.stringify(run.index.slice(0, 200))} is not an index name`);
    for (const bucket of run.buckets) {
      if (!Number.isSafeInteger(bucket) || Math.abs(bucket) >= MAX_BUCKET) throw new Error(`key run bucket ${bucket} is not a bucket`);
    }
    for (const partition of run.partitions) {
      if (!Number.isInteger(partition)) throw new Error(`key run partition ${partition} is not a whole number`);
    }
    count += run.buckets.length * run.partitions.length;
    if (count > maxKeys) throw new Error(`the fragment's key runs name more than ${maxKeys} keys`);
  }
  const keys: string[] = [];
  for (const { index, buckets, partitions } of runs) {
    for (const bucket of buckets) for (const partition of partitions) keys.push(keyString({ index, bucket, partition }));
  }
  return keys;
}
