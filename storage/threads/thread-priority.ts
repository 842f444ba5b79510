/**
 * Background threads at a lower CPU priority. Compaction is background work: when ingest keeps
 * both cores busy, a merge should take what is left, not half, as RocksDB runs its compactions in
 * a low-priority thread pool. On Linux a thread is a task with a nice value of its own, so the
 * worker renices itself by its thread id; elsewhere this does nothing.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';

/** Nice value of background threads: under CFS a nice-10 thread gets about a tenth of a contended core. */
export const BACKGROUND_NICE = 10;

/** This thread's kernel id (Linux), or null where threads have none to read. */
export function currentThreadId(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const id = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    return Number.isInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

/** Lowers the calling thread's CPU priority to `nice`; false when the platform cannot. */
export function lowerThreadPriority(nice = BACKGROUND_NICE): boolean {
  const id = currentThreadId();
  if (id === null) return false;
  try {
    os.setPriority(id, nice);
    return true;
  } catch {
    return false;
  }
}
