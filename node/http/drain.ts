/**
 * Requests in flight, for a graceful shutdown. Every request admitted before the shutdown counts
 * until its response is finished (or its connection closes); long-lived answers (query streams,
 * SSE) register how to end them, since they would otherwise run until the shutdown timeout.
 */
import type { ServerResponse } from 'http';

export class RequestDrain {
  private inFlight = 0;
  private readonly enders: (() => void)[] = [];
  private onIdle: (() => void) | null = null;

  get active(): number {
    return this.inFlight;
  }

  /** Counts a request until its response closes. */
  admit(response: ServerResponse): void {
    this.inFlight++;
    response.once('close', () => {
      this.inFlight--;
      if (this.inFlight === 0) this.onIdle?.();
    });
  }

  /** Registers how to end long-lived answers when the drain starts. */
  onDrain(end: () => void): void {
    this.enders.push(end);
  }

  /** Ends the long-lived answers, then waits until nothing is in flight; false when the deadline came first. */
  async drain(deadlineMs: number): Promise<boolean> {
    for (const end of this.enders) end();
    if (this.inFlight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => (this.onIdle = () => resolve(true)));
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadlineMs - Date.now()))));
    try {
      return await Promise.race([idle, late]);
    } finally {
      clearTimeout(timer);
      this.onIdle = null;
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's requests in flight (see RequestDrain). */
    drain: RequestDrain;
  }
}
