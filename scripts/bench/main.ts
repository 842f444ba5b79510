/**
 * Benchmarks: `npm run bench -- <name> [flags]`. Names: `ingest`, `auth`, `query`, `flush`, `compact`, `scan`, `cluster`, `grpc-calls`, `spread`, `placement`, `features`, `tail`, `pressure`, `ui`.
 * Long runs, not timed tests: they print tables for the README and the issue notes.
 */
import { parseArgs } from 'util';
import { runAuthBench } from './auth';
import { runClusterBench } from './cluster';
import { runCompactBench } from './compact';
import { runFeaturesBench } from './features';
import { runFlushBench } from './flush';
import { runGrpcCallsBench } from './grpc-calls';
import { runIngestBench } from './ingest';
import { runPlacementBench } from './placement';
import { runPressureBench } from './pressure';
import { runQueryBench } from './query';
import { runScanBench } from './scan';
import { runSpreadBench } from './spread';
import { runTailBench } from './tail';
import { runUiBench } from './ui';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      events: { type: 'string' },
      warmup: { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      fsync: { type: 'boolean' },
      runs: { type: 'string' },
      'warm-runs': { type: 'string' },
      'node-options': { type: 'string' },
      'ingest-rate': { type: 'string' },
      baseline: { type: 'string' },
      inputs: { type: 'string' },
      partitions: { type: 'string' },
      nodes: { type: 'string' },
      spans: { type: 'string' },
      'no-tail': { type: 'boolean' },
      'one-partitioned': { type: 'boolean' },
      seconds: { type: 'string' },
      hours: { type: 'string' },
      'range-hours': { type: 'string' },
      from: { type: 'string' },
    },
  });
  const name = positionals[0] ?? 'ingest';
  switch (name) {
    case 'ingest':
      await runIngestBench({
        events: Number(values.events ?? 1_000_000),
        warmup: Number(values.warmup ?? 0),
        batch: Number(values.batch ?? 10_000),
        concurrency: Number(values.concurrency ?? 2),
        fsync: values.fsync === true,
      });
      return;
    case 'auth':
      await runAuthBench({
        events: Number(values.events ?? 500_000),
        batch: Number(values.batch ?? 10_000),
        concurrency: Number(values.concurrency ?? 2),
        runs: Number(values.runs ?? 5),
      });
      return;
    case 'query':
      await runQueryBench({
        events: Number(values.events ?? 10_000_000),
        runs: Number(values.runs ?? 5),
        ingestRate: Number(values['ingest-rate'] ?? 100_000),
        baseline: values.baseline ?? null,
      });
      return;
    case 'flush':
      await runFlushBench({
        events: Number(values.events ?? 131_072),
        runs: Number(values.runs ?? 12),
        baseline: values.baseline ?? null,
      });
      return;
    case 'compact':
      await runCompactBench({
        events: Number(values.events ?? 262_144),
        inputs: Number(values.inputs ?? 1),
        runs: Number(values.runs ?? 7),
        baseline: values.baseline ?? null,
      });
      return;
    case 'scan':
      await runScanBench({
        events: Number(values.events ?? 200_000),
        runs: Number(values.runs ?? 7),
        partitions: Number(values.partitions ?? 16),
        baseline: values.baseline ?? null,
      });
      return;
    case 'cluster':
      await runClusterBench({
        events: Number(values.events ?? 1_000_000),
        warmup: Number(values.warmup ?? values.events ?? 1_000_000),
        hours: Number(values.hours ?? 6),
        rangeHours: values['range-hours'] === undefined ? null : Number(values['range-hours']),
        from: values.from ?? null,
        runs: Number(values.runs ?? 21),
        warmRuns: Number(values['warm-runs'] ?? 1),
        nodes: Number(values.nodes ?? 3),
        concurrency: Number(values.concurrency ?? 4),
        partitions: Number(values.partitions ?? 16),
        nodeOptions: values['node-options'] ?? null,
        onePartitioned: values['one-partitioned'] ?? false,
        baseline: values.baseline ?? null,
      });
      return;
    case 'grpc-calls':
      await runGrpcCallsBench({ runs: Number(values.runs ?? 3_000) });
      return;
    case 'spread':
      await runSpreadBench({
        events: Number(values.events ?? 2_000),
        runs: Number(values.runs ?? 15),
        nodes: Number(values.nodes ?? 3),
        baseline: values.baseline ?? null,
      });
      return;
    case 'features':
      await runFeaturesBench({
        events: Number(values.events ?? 10_000_000),
        runs: Number(values.runs ?? 7),
        tail: values['no-tail'] !== true,
      });
      return;
    case 'placement':
      runPlacementBench({
        events: Number(values.events ?? 1_000_000),
        nodes: Number(values.nodes ?? 3),
        spans: Number(values.spans ?? 40),
        partitions: Number(values.partitions ?? 16),
      });
      return;
    case 'tail':
      await runTailBench({
        nodes: values.nodes === undefined ? [1, 3] : [Number(values.nodes)],
        ingestRate: Number(values['ingest-rate'] ?? 50_000),
        seconds: Number(values.seconds ?? 20),
        batch: Number(values.batch ?? 1_000),
      });
      return;
    case 'pressure':
      await runPressureBench({
        events: Number(values.events ?? 1_000_000),
        seconds: Number(values.seconds ?? 60),
        nodes: Number(values.nodes ?? 1),
      });
      return;
    case 'ui':
      await runUiBench({ events: Number(values.events ?? 10_000_000), runs: Number(values.runs ?? 7) });
      return;
    default:
      throw new Error(
        `unknown benchmark "${name}" (known: ingest, auth, query, flush, compact, scan, cluster, spread, placement, features, tail, pressure, ui)`,
      );
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
