/**
 * A worker thread's own V8 heap, sent with each of its responses so that the pool knows it without
 * asking (node/app/memory-parts.ts reports the sum per pool).
 */
import v8 from 'v8';

/** The heap this thread's isolate holds now (committed, used or not). */
export function threadHeapBytes(): number {
  return v8.getHeapStatistics().total_heap_size;
}
