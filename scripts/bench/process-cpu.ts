/** CPU time of a process, from Linux /proc: what the bench scripts read to report server CPU. */
import fs from 'fs';

/** utime + stime of a /proc stat line, in seconds (fields 14 and 15, i.e. 11 and 12 after the command name). */
function statCpuSeconds(path: string): number {
  try {
    const fields = fs.readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds a process has used (all threads); 0 where unavailable. */
export function processCpuSeconds(pid: number | undefined): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * The same for the process's main thread alone (its thread id is the process id): in a Node
 * process that is the event loop, where HTTP, gRPC, planning and merging run; the rest is the
 * worker threads' scans and V8's own threads (garbage collection, compilation).
 */
export function mainThreadCpuSeconds(pid: number | undefined): number {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}
