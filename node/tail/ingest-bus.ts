/**
 * The ingest bus: the node that acknowledged an ingest request publishes its accepted events here,
 * as the chunks it stored, once they are durable. Live tail sessions (and, in a cluster, the
 * peers' subscriptions) listen. The listeners run just after the publishing request's turn of the
 * event loop (its acknowledgement goes out first) and in publishing order; a listener must not wait
 * on anything, so ingest never waits for a tail. A publication reaches the listeners subscribed
 * when it was published and still subscribed when it is delivered. Publishing with no listener
 * costs a size check.
 */
import type { EventChunk } from '../../storage/buffer/event-chunk';

export type IngestListener = (chunks: readonly EventChunk[]) => void;

export class IngestBus {
  private readonly listeners = new Set<IngestListener>();

  constructor(private readonly onListenerError: (error: Error) => void = () => undefined) {}

  /** Adds a listener; returns what removes it. */
  subscribe(listener: IngestListener): () => void {
    // A function subscribed twice is two listeners.
    const own: IngestListener = (chunks) => listener(chunks);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  publish(chunks: readonly EventChunk[]): void {
    if (this.listeners.size === 0) return;
    const listeners = [...this.listeners];
    setImmediate(() => {
      for (const listener of listeners) {
        if (!this.listeners.has(listener)) continue;
        try {
          listener(chunks);
        } catch (error) {
          // One listener's failure is its own: the request was acknowledged, the others still hear it.
          this.onListenerError(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
  }
}
