/** How a channel's failed send is tried again. */
import { SendError } from './http-send';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The wait before each retry: the n-th retry waits backoffMs[n - 1] (the last for any beyond). */
  backoffMs: readonly number[];
}

/** Three attempts, 0.5 s then 1 s apart: rides out a receiver's restart without holding a firing long. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, backoffMs: [500, 1000] };

export function isRetryable(error: unknown): boolean {
  return !(error instanceof SendError) || error.retryable;
}

/** Runs `attempt` until it succeeds, fails for good, or the attempts are spent; throws the last error. */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= policy.attempts || !isRetryable(error)) throw error;
      const wait = policy.backoffMs[Math.min(tried - 1, policy.backoffMs.length - 1)] ?? 0;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
