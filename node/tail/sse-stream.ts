/**
 * Server-sent events to one client, never waiting for it: what the client has not read yet stays
 * in the response's buffer, and once that holds more than a bound, droppable events (live results,
 * heartbeats) are dropped instead of written, the results counted. So a client that stops reading
 * costs a bounded amount of memory and never slows ingest.
 */
import type { ServerResponse } from 'http';

/** Unread bytes a client may have before its live results are dropped. */
export const MAX_UNREAD_BYTES = 1 << 20;

export class SseStream {
  /** Results dropped because the client fell behind. */
  dropped = 0;

  constructor(
    private readonly raw: ServerResponse,
    private readonly maxUnreadBytes = MAX_UNREAD_BYTES,
  ) {}

  open(): void {
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // Proxies that buffer responses (nginx) would hold events back.
      'x-accel-buffering': 'no',
    });
    this.raw.flushHeaders();
  }

  get closed(): boolean {
    return this.raw.destroyed || this.raw.writableEnded;
  }

  /** Writes an event whatever the client's backlog (catchup results, `catchup_done`, `error`). */
  send(event: string, data: unknown): void {
    if (!this.closed) this.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Writes a live result unless the client is too far behind; false when it was dropped (and counted). */
  offerResult(data: unknown): boolean {
    if (this.behind()) {
      this.dropped++;
      return false;
    }
    this.send('result', data);
    return true;
  }

  /** Writes a heartbeat unless the client is too far behind (it would only add to the backlog). */
  offerHeartbeat(data: unknown): void {
    if (!this.behind()) this.send('heartbeat', data);
  }

  end(): void {
    if (!this.closed) this.raw.end();
  }

  private behind(): boolean {
    return this.raw.writableLength > this.maxUnreadBytes;
  }
}
