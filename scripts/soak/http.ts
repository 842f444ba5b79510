/**
 * HTTP calls whose failures say what the server may have done: each call opens its own connection
 * (no pooled connection that a kill left stale), so a refused connection proves nothing was sent,
 * while an error after connecting leaves the outcome unknown.
 */
import http from 'http';

export type CallOutcome =
  /** The server answered (any status). */
  | { kind: 'answered'; status: number; body: any; text: string }
  /** The connection was refused or never made: the request was not sent. */
  | { kind: 'unreachable'; error: string }
  /** The connection broke or timed out after it was made: the server may have acted on the request. */
  | { kind: 'lost'; error: string };

export interface CallOptions {
  method?: 'GET' | 'POST';
  body?: string;
  timeoutMs?: number;
}

export function call(url: string, options: CallOptions = {}): Promise<CallOutcome> {
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const settle = (outcome: CallOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const fail = (error: Error): void =>
      settle(connected ? { kind: 'lost', error: error.message } : { kind: 'unreachable', error: error.message });
    const headers: Record<string, string> =
      options.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) };
    const req = http.request(url, { method: options.method ?? 'GET', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? null : JSON.parse(text);
        } catch {
          // not JSON (an NDJSON export): the text is what counts
        }
        settle({ kind: 'answered', status: res.statusCode ?? 0, body, text });
      });
      res.on('aborted', () => fail(new Error('the answer was cut off')));
    });
    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.setTimeout(options.timeoutMs ?? 60_000, () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 60_000} ms`)));
    req.on('error', fail);
    req.end(options.body);
  });
}

/** A JSON GET that must answer 200; throws otherwise (for status polls, where the caller retries). */
export async function getJson(url: string, timeoutMs = 5_000): Promise<any> {
  const outcome = await call(url, { timeoutMs });
  if (outcome.kind !== 'answered') throw new Error(`${url}: ${outcome.kind} (${outcome.error})`);
  if (outcome.status !== 200) throw new Error(`${url}: ${outcome.status} ${outcome.text.slice(0, 200)}`);
  return outcome.body;
}
