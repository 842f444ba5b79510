/** The query executor's view of this node's storage engine. */
import type { ScanSource } from '../../query/exec/execute';
import type { StorageEngine } from '../../storage/engine';
import { readBufferedChunk, releasePlan } from '../../storage/scan';

export function localScanSource(engine: StorageEngine): ScanSource {
  return {
    planScan: (request, trace) => engine.planScan(request, trace),
    readSegmentBlocks: (reads) =>
      engine.store.readBlocksBuffers(reads.map((read) => ({ header: read.unit.header, block: read.block, columns: read.stored }))),
    readBufferedChunk: (unit, request, stats) => readBufferedChunk(unit, request, stats),
    releasePlan: (plan) => releasePlan(engine.store, plan),
  };
}
