/**
 * Where a tail session's live events come from: this node's ingest bus, and in a cluster every
 * other member's (node/cluster/tail-feeds.ts). A source hands over the rows that passed the
 * stages before the query's first `head` (query/exec/live-pipeline.ts).
 */
import { matchChunks } from '../../query/exec/live-pipeline';
import type { QueryPlan } from '../../query/plan/plan';
import type { Row } from '../../query/exec/rows';
import { indexMatcher } from '../../storage/scan';
import type { IngestBus } from './ingest-bus';

export interface LiveHandlers {
  rows(rows: Row[]): void;
  /** Matches a source dropped because the session fell behind it. */
  dropped(count: number): void;
  /** Something the client should hear about (an error event); the session goes on. */
  problem(code: string, message: string): void;
}

export interface LiveSource {
  /** Resolves once the source listens: events acknowledged from then on reach the session. */
  readonly ready: Promise<void>;
  close(): void;
}

/** What a session asks its sources for: the query's text (for peers) and its plan (for this node). */
export interface LiveQuery {
  text: string;
  plan: QueryPlan;
  nowMicros: number;
}

export type LiveSourceFactory = (query: LiveQuery, handlers: LiveHandlers) => LiveSource;

/** This node's own ingest. */
export function localSource(bus: IngestBus): LiveSourceFactory {
  return (query, handlers) => {
    const ofIndex = indexMatcher(query.plan.indexPatterns);
    const unsubscribe = bus.subscribe((chunks) => {
      let rows: Row[];
      try {
        rows = matchChunks(query.plan, chunks, ofIndex);
      } catch (error) {
        handlers.problem('INTERNAL_ERROR', `the query's stages failed over ingested events: ${(error as Error).message}`);
        return;
      }
      if (rows.length > 0) handlers.rows(rows);
    });
    return { ready: Promise.resolve(), close: unsubscribe };
  };
}
