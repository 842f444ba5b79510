/**
 * How many worker threads each pool runs: the `server.*_workers` setting, or a count sized from
 * the cores when it is 0. Several nodes of a development cluster on one machine each size their
 * pools for the whole machine by default; setting the counts lower keeps them from oversubscribing it.
 */
import { defaultCodecWorkers } from '../../storage/threads/codec-pool';
import { defaultQueryWorkers } from '../../query/exec/session-pool';
import { defaultIngestWorkers } from '../ingest/parser-pool';
import type { Settings } from '../config/settings';

export interface WorkerCounts {
  ingest: number;
  query: number;
  codec: number;
}

export function workerCounts(settings: Settings): WorkerCounts {
  const { ingestWorkers, queryWorkers, codecWorkers } = settings.server;
  return {
    ingest: ingestWorkers > 0 ? ingestWorkers : defaultIngestWorkers(),
    query: queryWorkers > 0 ? queryWorkers : defaultQueryWorkers(),
    codec: codecWorkers > 0 ? codecWorkers : defaultCodecWorkers(),
  };
}
