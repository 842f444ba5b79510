/**
 * Benchmarks: `npm run bench -- <name> [flags]`. Names: `ingest`.
 * Long runs, not timed tests: they print tables for the README and the issue notes.
 */
import { parseArgs } from 'util';
import { runIngestBench } from './ingest';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      events: { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      fsync: { type: 'boolean' },
    },
  });
  const name = positionals[0] ?? 'ingest';
  switch (name) {
    case 'ingest':
      await runIngestBench({
        events: Number(values.events ?? 1_000_000),
        batch: Number(values.batch ?? 10_000),
        concurrency: Number(values.concurrency ?? 2),
        fsync: values.fsync === true,
      });
      return;
    default:
      throw new Error(`unknown benchmark "${name}" (known: ingest)`);
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
