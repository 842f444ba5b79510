/**
 * `npm run soak -- --minutes N [--writers N] [--query-loops N] [--seed N] [--without-faults]`: the
 * cluster soak (soak.ts); without faults, a baseline. Prints progress, the summary table and every failure; exits 1 on any failure.
 */
import { parseArgs } from 'util';
import { DEFAULT_SOAK, runSoak } from './soak';

/** Failures printed in full; the rest are counted. */
const SHOWN_FAILURES = 40;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      writers: { type: 'string' },
      'query-loops': { type: 'string' },
      seed: { type: 'string' },
      'without-faults': { type: 'boolean' },
    },
  });
  const minutes = Number(values.minutes ?? 10);
  if (!(minutes > 0)) throw new Error(`--minutes must be a positive number (got ${values.minutes})`);
  const report = await runSoak({
    ...DEFAULT_SOAK,
    minutes,
    writers: Number(values.writers ?? DEFAULT_SOAK.writers),
    queryLoops: Number(values['query-loops'] ?? DEFAULT_SOAK.queryLoops),
    faults: values['without-faults'] !== true,
    seed: Number(values.seed ?? Date.now() % 1_000_000),
    log: (line) => console.log(line),
  });
  console.log(`\n${report.table}\n`);
  if (report.partialAnswers.length > 0)
    console.log(`answers that said meta.partial (no failure):\n${report.partialAnswers.map((line) => `- ${line}`).join('\n')}\n`);
  if (report.passed) {
    console.log('soak passed');
    return;
  }
  console.log(`soak FAILED: ${report.failures.length} failure(s)`);
  for (const failure of report.failures.slice(0, SHOWN_FAILURES)) console.log(`- ${failure}`);
  if (report.failures.length > SHOWN_FAILURES) console.log(`- ... and ${report.failures.length - SHOWN_FAILURES} more`);
  process.exitCode = 1;
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
