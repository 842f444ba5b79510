/**
 * HTTP/1.1 over a bare socket, for what fetch cannot send: malformed requests, short or stalled
 * bodies, huge request lines, pipelining. Reads the first response on the connection and whether
 * the server closed it afterwards.
 */
import net from 'net';

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or null when it is not JSON. */
  body: any;
  /** Milliseconds from connecting to the end of the response. */
  elapsedMs: number;
  /** The server closed the connection after the response (waited for only with `awaitClose`). */
  closed: boolean;
}

export interface RawOptions {
  /** Half-close the connection after writing (the client will send nothing more). */
  halfClose?: boolean;
  /** Also wait for the server to close the connection (up to `timeoutMs`). */
  awaitClose?: boolean;
  /** Give up (reject) when no complete response came by then. */
  timeoutMs?: number;
}

/** The first complete response in `data`, or null while it is incomplete. */
function parseResponse(data: Buffer, bodiless: boolean): { status: number; headers: Headers; text: string } | null {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const [statusLine, ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine)}`);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = bodiless ? 0 : Number(headers.get('content-length') ?? 0);
  const body = data.subarray(headEnd + 4);
  if (body.length < length) return null;
  return { status, headers, text: body.subarray(0, length).toString('utf8') };
}

/** Writes `request` on a new connection to 127.0.0.1:port and reads the first response. */
export function rawExchange(port: number, request: string | Buffer, options: RawOptions = {}): Promise<RawAnswer> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    // The answer to HEAD has a Content-Length but no body.
    const bodiless = Buffer.from(request).subarray(0, 5).toString('latin1') === 'HEAD ';
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let answer: Omit<RawAnswer, 'closed'> | null = null;
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled || answer === null) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...answer, closed });
    };
    const timer = setTimeout(() => {
      if (answer !== null) return finish(false);
      settled = true;
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms; received ${JSON.stringify(data.toString('latin1').slice(0, 300))}`));
    }, timeoutMs);
    socket.on('connect', () => {
      socket.write(request);
      if (options.halfClose) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (answer !== null) return;
      const parsed = parseResponse(data, bodiless);
      if (parsed === null) return;
      let body: unknown = null;
      try {
        body = JSON.parse(parsed.text);
      } catch {
        // not JSON: the caller looks at `text`
      }
      answer = { ...parsed, body, elapsedMs: Date.now() - started };
      if (!options.awaitClose) finish(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (answer !== null) return finish(true);
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        new Error(
          `the server closed the connection without a complete response; received ${JSON.stringify(data.toString('latin1').slice(0, 300))}`,
        ),
      );
    });
  });
}

/** A request's head: the request line, `Host`, the given headers and the blank line. */
export function head(method: string, target: string, headers: Record<string, string | number> = {}): string {
  const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n`;
}
