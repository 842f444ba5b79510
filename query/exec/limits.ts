/**
 * Per-query limits: a memory budget (materialized rows, stats groups) drawn from a global pool,
 * cancellation and the runtime limit. The HTTP layer maps these errors to the error codes of docs/api.md.
 */

export type QueryLimitCode = 'QUERY_MEMORY_EXCEEDED' | 'QUERY_POOL_EXHAUSTED' | 'QUERY_CANCELED' | 'QUERY_TIMEOUT';

export class QueryLimitError extends Error {
  constructor(
    readonly code: QueryLimitCode,
    message: string,
  ) {
    super(message);
    this.name = 'QueryLimitError';
  }
}

/** Memory shared by all running queries (`query.global_memory_pool`). */
export class MemoryPool {
  used = 0;

  constructor(public capacity: number) {}

  reserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** One query's budget (`query.max_query_memory`), reserved from the pool in chunks. */
export class MemoryBudget {
  private used = 0;
  private reserved = 0;
  private static readonly CHUNK = 4 * 1024 * 1024;

  constructor(
    private readonly limit: number,
    private readonly pool: MemoryPool | null,
  ) {}

  get bytes(): number {
    return this.used;
  }

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) {
      throw new QueryLimitError(
        'QUERY_MEMORY_EXCEEDED',
        `the query needs more than query.max_query_memory (${this.limit} bytes); narrow the time range, filter earlier or aggregate with stats`,
      );
    }
    if (this.pool !== null && this.used > this.reserved) {
      const chunk = Math.max(MemoryBudget.CHUNK, this.used - this.reserved);
      if (!this.pool.reserve(chunk)) {
        throw new QueryLimitError(
          'QUERY_POOL_EXHAUSTED',
          `the global query memory pool (query.global_memory_pool, ${this.pool.capacity} bytes) is exhausted by running queries; retry shortly`,
        );
      }
      this.reserved += chunk;
    }
  }

  /** Gives the reservation back to the pool (call once, when the query ends). */
  close(): void {
    this.pool?.release(this.reserved);
    this.reserved = 0;
  }
}

/** Throws when the query was canceled or ran past its deadline. */
export function checkAlive(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof QueryLimitError) throw reason;
  throw new QueryLimitError('QUERY_CANCELED', 'the query was canceled');
}
