/**
 * Local receivers for the alert channel tests: an HTTP server that records every request and
 * answers as the test tells it, and a real SMTP server (smtp-server) that records every message.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface RecordedRequest {
  method: string;
  /** Path and query, as the client sent them. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers its n-th request (0-based): a status, or `hang` to never answer. */
export type Responder = (index: number, request: RecordedRequest) => number | 'hang';

export interface HttpReceiver {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startHttpReceiver(respond: Responder = () => 200): Promise<HttpReceiver> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = requests.length;
      requests.push(recorded);
      const answer = respond(index, recorded);
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'application/json' });
      res.end(answer < 300 ? '{"ok":true}' : '{"error":"receiver refused"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpReceiver {
  port: number;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

/** A plain SMTP server on loopback: no TLS (nothing to trust), no authentication. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mailFrom = session.envelope.mailFrom;
        messages.push({
          from: mailFrom === false ? '' : mailFrom.address,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Waits until `condition` holds, checking every 10 ms; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A received message's headers (unfolded, encoded words decoded) and its quoted-printable text body. */
export function readMail(data: string): { headers: Record<string, string>; text: string } {
  const split = data.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of data
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = decodeEncodedWords(line.slice(colon + 1).trim());
  }
  let text = data.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) text = decodeQuotedPrintable(text.replace(/=\r\n/g, ''));
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

function decodeQuotedPrintable(text: string): string {
  return Buffer.from(
    text.replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

// RFC 2047 words (=?UTF-8?Q?...?= or ?B?), the whitespace between two of them dropped.
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_match, _charset: string, encoding: string, word: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(word, 'base64').toString('utf8') : decodeQuotedPrintable(word.replace(/_/g, ' ')),
    );
}
