/** CPU time of a process, from Linux /proc: what the bench scripts read to report server CPU. */
import fs from 'fs';

/** User + system CPU seconds a process has used (all threads); 0 where unavailable. */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
