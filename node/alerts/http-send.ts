/**
 * One HTTP request of a channel, with Node's fetch and a time limit. A failure throws a
 * SendError that says whether another attempt may succeed: a network error, a timeout, a 5xx,
 * 408 or 429 may; another 4xx (a wrong key, a refused body) will not, so it is not retried.
 */

export class SendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SendError';
  }
}

export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A vendor answer's text is cut to this in an error message: enough to read the reason. */
const ANSWER_EXCERPT_CHARS = 200;

export async function sendHttp(request: HttpRequest, timeoutMs: number): Promise<void> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
      // A redirect is not followed: it would carry the channel's secrets to a host nobody configured.
      redirect: 'manual',
    });
  } catch (error) {
    throw new SendError(describeFetchFailure(error, timeoutMs), true);
  }
  // The body is read whole, within the same limit, so the connection can be reused or closed.
  let answer = '';
  try {
    answer = await response.text();
  } catch {
    // A body cut off after a good status still delivered the notification.
  }
  if (response.status >= 200 && response.status < 300) return;
  const excerpt = answer.length > ANSWER_EXCERPT_CHARS ? `${answer.slice(0, ANSWER_EXCERPT_CHARS)}...` : answer;
  const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
  throw new SendError(`HTTP ${response.status}${excerpt === '' ? '' : `: ${excerpt}`}`, retryable);
}

function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    // undici reports "fetch failed" with the socket's error as the cause.
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message !== '') return `${error.message}: ${cause.message}`;
    return error.message;
  }
  return String(error);
}

/** Headers with a JSON content type unless the channel's own headers set one (any case). */
export function jsonHeaders(own: Record<string, string> = {}): Record<string, string> {
  const hasContentType = Object.keys(own).some((name) => name.toLowerCase() === 'content-type');
  return hasContentType ? { ...own } : { 'Content-Type': 'application/json', ...own };
}

/** A base URL and a path, with one slash between them whatever the base ends with. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
