/**
 * The cluster soak (scripts/soak) for one minute: 3 real nodes at replication 2 under writers, query
 * loops and one fault at a time (kill -9, SIGSTOP, clean restart). Every acknowledged event must be
 * held exactly once through every node and twice in the nodes' /stats, no answer a silent
 * undercount, no node exiting on its own, RSS bounded. `npm run soak -- --minutes N` runs it longer.
 */
import { strict as assert } from 'assert';
import { DEFAULT_SOAK, runSoak } from '../../scripts/soak/soak';

describe('cluster soak: one minute of writes, queries and faults', function () {
  // About 90 s; at most a minute of run, a writer's last batch (2 min) or the last fault's recovery,
  // the final recovery (90 s), the checks and the stops (45 s).
  this.timeout(8 * 60_000);

  it('keeps every acknowledged event exactly once, answers no silent undercount, and no node exits on its own', async () => {
    const progress: string[] = [];
    const report = await runSoak({ ...DEFAULT_SOAK, minutes: 1, seed: 1, log: (line) => progress.push(line) });
    const partial = report.partialAnswers.length === 0 ? '' : `\n\nanswers that said meta.partial:\n${report.partialAnswers.join('\n')}`;
    assert.ok(
      report.passed,
      `${report.table}\n\n${report.failures.slice(0, 40).join('\n')}${partial}\n\nprogress:\n${progress.join('\n')}`,
    );
  });
});
