/**
 * `ingest.rate_limit`: events per second per client (0 = off), as a token bucket per client
 * address that refills continuously and holds at most one second's worth. A request is refused
 * whole (429 RATE_LIMITED) when it carries more events than the bucket holds, so an accepted
 * request is never cut.
 */
import { ApiError } from '../core/errors';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Buckets unused for this long are dropped, so the table does not grow with every client ever seen. */
const IDLE_MS = 60_000;

export class IngestRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweepMs = 0;

  constructor(private readonly limit: () => number) {}

  /** Takes `events` tokens for `client` or throws 429. */
  take(client: string, events: number, nowMs = Date.now()): void {
    const rate = this.limit();
    if (rate <= 0 || events === 0) return;
    this.sweep(nowMs);
    let bucket = this.buckets.get(client);
    if (bucket === undefined) {
      bucket = { tokens: rate, updatedMs: nowMs };
      this.buckets.set(client, bucket);
    }
    bucket.tokens = Math.min(rate, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * rate);
    bucket.updatedMs = nowMs;
    if (events > bucket.tokens) {
      const waitSeconds = Math.ceil((events - bucket.tokens) / rate);
      throw new ApiError(
        'RATE_LIMITED',
        `ingest rate limit of ${rate} events/s exceeded for ${client}: this request has ${events} events; retry in ${waitSeconds}s` +
          (events > rate ? ' (or send smaller batches: a request may carry at most one second of the limit)' : ''),
      ).retryAfter(waitSeconds);
    }
    bucket.tokens -= events;
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < IDLE_MS) return;
    this.lastSweepMs = nowMs;
    for (const [client, bucket] of this.buckets) if (nowMs - bucket.updatedMs > IDLE_MS) this.buckets.delete(client);
  }
}
