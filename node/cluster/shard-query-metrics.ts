/**
 * Prometheus metrics of distributed queries: on the coordinator, each fragment's latency by
 * outcome, the fragments asked again after a node failed, the queries run again for an index they
 * had not heard of, and the keys answers lacked; on every
 * node, the fragments it runs for coordinators (itself included) and how they ended.
 */
import client from 'prom-client';
import type { DistributionObserver } from '../../coordinator/distribution';
import type { FragmentOutcome } from '../../coordinator/scatter-gather';

export class ShardQueryMetrics implements DistributionObserver {
  private readonly latency: client.Histogram<'outcome'>;
  private readonly retriedFragments: client.Counter;
  private readonly shortShares: client.Counter;
  private readonly unlistedQueries: client.Counter;
  private readonly missingKeys: client.Counter;
  private readonly partialQueries: client.Counter;
  private readonly running: client.Gauge;
  private readonly served: client.Counter<'outcome'>;

  constructor(registry: client.Registry) {
    const registers = [registry];
    this.latency = new client.Histogram({
      name: 'trawl_shard_query_duration_seconds',
      help: 'Time from asking a node for a query fragment to its answer, on the coordinator, by outcome (ok, error, canceled)',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.retriedFragments = new client.Counter({
      name: 'trawl_shard_fragments_retried_total',
      help: 'Fragments asked of other owners because the node first asked failed in the middle of a query',
      registers,
    });
    this.shortShares = new client.Counter({
      name: 'trawl_query_head_shares_short_total',
      help: 'Fragments of a head over several nodes asked again for the rows their newest share may have left out',
      registers,
    });
    this.unlistedQueries = new client.Counter({
      name: 'trawl_query_indexes_unlisted_total',
      help: 'Queries run again asking the nodes for their keys, because a node held an index their globs match that this coordinator had not heard of',
      registers,
    });
    this.missingKeys = new client.Counter({
      name: 'trawl_query_missing_keys_total',
      help: 'Partition keys no owner could answer for, summed over queries (their answers say partial)',
      registers,
    });
    this.partialQueries = new client.Counter({
      name: 'trawl_query_partial_total',
      help: 'Queries answered with meta.partial: true',
      registers,
    });
    this.running = new client.Gauge({
      name: 'trawl_shard_fragments_running',
      help: 'Query fragments this node is running for a coordinator (itself or another node)',
      registers,
    });
    this.served = new client.Counter({
      name: 'trawl_shard_fragments_total',
      help: 'Query fragments this node ran for a coordinator, by outcome (ok, error, canceled)',
      labelNames: ['outcome'],
      registers,
    });
  }

  ended(_attempt: number, _node: string, ms: number, outcome: FragmentOutcome): void {
    this.latency.observe({ outcome }, ms / 1000);
  }

  retried(_node: string, fragments: number): void {
    this.retriedFragments.inc(fragments);
  }

  sharesShort(fragments: number): void {
    this.shortShares.inc(fragments);
  }

  unlisted(): void {
    this.unlistedQueries.inc();
  }

  missing(count: number): void {
    if (count === 0) return;
    this.missingKeys.inc(count);
    this.partialQueries.inc();
  }

  /** Runs a fragment this node serves, counted while it runs and by how it ended. */
  async serve<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    this.running.inc();
    try {
      const result = await work();
      this.served.inc({ outcome: 'ok' });
      return result;
    } catch (error) {
      this.served.inc({ outcome: signal.aborted ? 'canceled' : 'error' });
      throw error;
    } finally {
      this.running.dec();
    }
  }
}
