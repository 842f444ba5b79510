/**
 * How far V8 lets a heap grow past what survived its last full collection, for every isolate of
 * the process (the main thread and the worker threads started after this is set).
 *
 * V8 picks the factor after each full collection from how fast it marked against how fast the
 * program filled the old generation. A node's heaps are small (the events live in buffers outside
 * them) and fill slowly, so V8 chose 1.1-1.5 (`--trace-gc-verbose`): during ingest a node's main
 * isolate marked its whole heap again every 150-300 ms while it stayed at 24-28 MB, 21-25 full
 * collections per node over 1,000,000 events at 3 nodes against 6-8 with the factor fixed at 3.
 * Its estimate leaves out the marking done on V8's helper threads, which paid most of it
 * (docs/benchmarks.md).
 */
import v8 from 'v8';

/** The heap may grow to 3x what survived (V8's `--heap-growing-percent`, 100 + this). */
export const HEAP_GROWING_PERCENT = 200;

/** Whether node's command line already sets the factor (the operator's choice is kept). */
export function setsHeapGrowth(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
}

/** Sets the factor unless node's command line did; true when it was set here. Call before any worker starts. */
export function applyHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (setsHeapGrowth(execArgv)) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
