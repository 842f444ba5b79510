/**
 * How far V8 lets a heap grow past what survived its last full collection, for every isolate of
 * the process (the main thread and the worker threads).
 *
 * V8 picks the factor after each full collection from how fast it marked against how fast the
 * program filled the old generation. A node's heaps are small (the events live in buffers outside
 * them) and fill slowly, so V8 chose 1.1-1.5 (`--trace-gc-verbose`): during ingest a node's main
 * isolate marked its whole heap again every 150-300 ms while it stayed at 24-28 MB, 21-25 full
 * collections per node over 1,000,000 events at 3 nodes against 6-8 with the factor fixed at 3.
 * Its estimate leaves out the marking done on V8's helper threads, which paid most of it
 * (docs/benchmarks.md).
 *
 * So the server sets the factor itself, from the main heap's size after each full collection: 3x
 * a small heap, and for a larger one the factor that leaves it about as much room (a heap of
 * hundreds of MB, the segment metadata of tens of millions of events, must not triple).
 */
import v8 from 'v8';
import { constants, PerformanceObserver, type PerformanceEntry } from 'perf_hooks';

const MIB = 1024 * 1024;

/** The room past the live heap the factor aims at. */
export const HEAP_HEADROOM_BYTES = 64 * MIB;
/** The most a heap may grow (3x): heaps of up to half the headroom (32 MiB) get it. */
export const MAX_GROWING_PERCENT = 200;
/** The least (1.25x): heaps of four times the headroom (256 MiB) and more get it. */
export const MIN_GROWING_PERCENT = 25;

/** V8's `--heap-growing-percent` (the factor less 1, in percent) for a heap of `liveBytes` after a full collection. */
export function growingPercentFor(liveBytes: number): number {
  const percent = Math.round((100 * HEAP_HEADROOM_BYTES) / Math.max(1, liveBytes));
  return Math.min(MAX_GROWING_PERCENT, Math.max(MIN_GROWING_PERCENT, percent));
}

/** Whether node's command line already sets the factor (the operator's choice is kept). */
export function setsHeapGrowth(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
}

function setPercent(percent: number): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

function isFullCollection(entry: PerformanceEntry): boolean {
  return (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

/**
 * Sets the factor for the main heap as it is now, then again after each full collection of it,
 * unless node's command line set one; `onSet` hears each factor set. Returns a stop (it leaves the
 * last factor set), or null when the command line's factor is kept. Call before any worker starts.
 */
export function applyHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  onSet: (percent: number) => void = () => undefined,
): (() => void) | null {
  if (setsHeapGrowth(execArgv)) return null;
  let current = growingPercentFor(v8.getHeapStatistics().used_heap_size);
  setPercent(current);
  onSet(current);
  const observer = new PerformanceObserver((list) => {
    if (!list.getEntries().some(isFullCollection)) return;
    const next = growingPercentFor(v8.getHeapStatistics().used_heap_size);
    if (next === current) return;
    current = next;
    setPercent(next);
    onSet(next);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
