/**
 * The audit log's writer. Each entry is an event of the internal index `_audit`, stored the way an
 * ingested event is (node alone: the write buffer; cluster: every owner of its key, through the
 * write path), so it is as durable, replicated and retained as any acknowledged event, and any
 * node reads all of them with one query. The node that took a request writes its entry, once,
 * before the request is answered. A failed write is logged and counted, never turned into a
 * failed request: the action it records has already happened.
 */
import { chunkEvents, type EventChunk } from '../../storage/buffer/event-chunk';
import { encodeChunkRecordViews } from '../../storage/buffer/chunk-record';
import type { Placement } from '../../storage/core/partition';
import type { Logger } from '../core/logger';
import { auditEvent, type AuditEntry } from './audit-entry';
import { RefusalBound, type RefusalLimits } from './refusal-bound';

/** Stores a record of chunks: the node's own write buffer, or the cluster's write path. */
export type AuditStore = (chunks: readonly EventChunk[], record: Buffer, placement: Placement) => Promise<void>;

interface ActionCounter {
  inc(labels: { action: string }): void;
}

export interface AuditLogOptions {
  store: AuditStore;
  placement: () => Placement;
  nodeId: () => string;
  refusalLimits: () => RefusalLimits;
  written: ActionCounter;
  failed: ActionCounter;
  logger: Logger;
}

/** How often ended refusal windows are summed up. */
const SUMMARY_INTERVAL_MS = 1000;

export class AuditLog {
  private readonly refusals: RefusalBound;
  private lastMicros = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: AuditLogOptions) {
    this.refusals = new RefusalBound(options.refusalLimits);
  }

  /** Stores the entry; resolves once it is durable (or its failure logged). */
  async record(entry: AuditEntry): Promise<void> {
    const { options } = this;
    try {
      const placement = options.placement();
      const { chunks, record } = encodeChunkRecordViews(chunkEvents([auditEvent(entry, this.nextMicros())], placement), placement);
      await options.store(chunks, record, placement);
      options.written.inc({ action: entry.action });
    } catch (error) {
      options.failed.inc({ action: entry.action });
      options.logger.error(
        `audit: the ${entry.action} entry of ${entry.actor.method ?? ''} ${entry.actor.path ?? ''} was not stored: ${(error as Error).message}`,
      );
    }
  }

  /** A refused credential: recorded within the bound on refusals per client address (refusal-bound.ts). */
  async refused(entry: AuditEntry): Promise<void> {
    if (entry.actor.clientIp !== null && this.refusals.admit(entry.actor.clientIp)) await this.record(entry);
  }

  start(): void {
    this.timer = setInterval(() => void this.summarize(false), SUMMARY_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the summaries, writing those of the windows still open. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.summarize(true);
  }

  private async summarize(all: boolean): Promise<void> {
    for (const window of this.refusals.ended(all)) {
      await this.record({
        action: 'auth.refused.suppressed',
        outcome: 'failure',
        actor: { keyId: null, keyName: null, scope: null, clientIp: window.address, node: this.options.nodeId(), method: null, path: null },
        target: null,
        suppressed: window.suppressed,
        windowStart: new Date(window.startMs).toISOString(),
      });
    }
  }

  /** Entry times in microseconds, strictly rising on a node, so its entries keep their order. */
  private nextMicros(): number {
    this.lastMicros = Math.max(Date.now() * 1000, this.lastMicros + 1);
    return this.lastMicros;
  }
}
