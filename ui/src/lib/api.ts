/**
 * Calls to the node's HTTP API. Every URL is relative to the page (`./api/v1/...`), so the UI works
 * behind a reverse proxy that serves the node under a path prefix. An answer of 401 asks the person
 * for a token (kept in sessionStorage) and retries; a 404 from a path the server does not serve is
 * a MissingEndpoint, which a page shows as "this server has no ...".
 */
import { forgetToken, readToken } from './token';

export const API = './api/v1';

/** An error answer of the API: its status, code and message, and a parse error's position. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** A parse error's `line`, `column` and `suggestion` (INVALID_QUERY), when the answer has them. */
  get position(): { line: number; column: number; suggestion: string } | null {
    const { line, column, suggestion } = this.body;
    if (typeof line !== 'number' || typeof column !== 'number') return null;
    return { line, column, suggestion: typeof suggestion === 'string' ? suggestion : '' };
  }
}

/** The server has no route for this path: a node without the feature. */
export class MissingEndpoint extends Error {}

type TokenAsker = () => Promise<string | null>;
let askForToken: TokenAsker = async () => null;

/** The token prompt of the page: asked when an API call answers 401. */
export function setTokenAsker(asker: TokenAsker): void {
  askForToken = asker;
}

function bearerOf(token: string | null): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

async function errorOf(response: Response): Promise<Error> {
  const text = await response.text();
  let body: { error?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (a proxy's page): the status alone
  }
  const error = body.error;
  if (typeof error === 'string') return new ApiError(response.status, '', error);
  if (typeof error === 'object' && error !== null) {
    const detail = error as Record<string, unknown>;
    const message = String(detail.message ?? response.statusText);
    if (response.status === 404 && message.startsWith('no such endpoint')) return new MissingEndpoint(message);
    return new ApiError(response.status, String(detail.code ?? ''), message, detail);
  }
  if (response.status === 404) return new MissingEndpoint(`${response.url}: 404`);
  return new ApiError(response.status, '', `${response.status} ${response.statusText}`);
}

/**
 * fetch with the token, asking for one on 401 (once per call); any other answer that is not 2xx
 * throws ApiError or MissingEndpoint. A 401 to a call sent before the person gave a token (several
 * calls are out when the page opens) tries that token instead of forgetting it and asking again.
 */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const sent = readToken();
    const response = await fetch(`${API}${path}`, { ...init, headers: { ...bearerOf(sent), ...(init.headers ?? {}) } });
    if (response.ok) return response;
    if (response.status === 401 && attempt === 0) {
      const now = readToken();
      if (now !== null && now !== sent) continue;
      forgetToken();
      if ((await askForToken()) !== null) continue;
    }
    throw await errorOf(response);
  }
}

/** A JSON call answering `data` of the envelope (null for 204). */
export async function json<T>(path: string, method = 'GET', body?: unknown, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = { method, signal: signal ?? null };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const response = await call(path, init);
  if (response.status === 204) return null as T;
  const answer = (await response.json()) as { data: T };
  return answer.data;
}

/** `?a=1&b=2` from the defined entries. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
