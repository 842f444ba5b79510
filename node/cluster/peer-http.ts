/**
 * Calls from this node to another member's HTTP API (job forwarding, the cluster's job list, a
 * removal passed to the master). Every node of a cluster serves the same scheme, so a node that
 * serves HTTPS (`tls.enabled`) calls the others over HTTPS, trusting `tls.ca_file` when set and the
 * system's CAs otherwise; one connection pool per node.
 */
import fs from 'fs';
import http from 'http';
import https from 'https';
import type { Settings } from '../config/settings';
import type { Member } from './cluster-state';

export interface PeerHttpRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Aborts the request and the body being read. */
  signal?: AbortSignal;
}

export interface PeerHttpResponse {
  status: number;
  ok: boolean;
  contentType: string | null;
  /** The body as it comes. */
  body: http.IncomingMessage;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export class PeerHttp {
  private readonly agent: http.Agent;

  constructor(
    readonly secure: boolean,
    ca: Buffer | null = null,
  ) {
    this.agent = secure ? new https.Agent({ keepAlive: true, ...(ca === null ? {} : { ca }) }) : new http.Agent({ keepAlive: true });
  }

  /** The peer client of a node with these settings; reads `tls.ca_file` (throws naming it when it cannot). */
  static fromSettings(settings: Settings): PeerHttp {
    const { enabled, caFile } = settings.tls;
    if (!enabled || caFile === null) return new PeerHttp(enabled);
    try {
      return new PeerHttp(true, fs.readFileSync(caFile));
    } catch (error) {
      throw new Error(`tls.ca_file ${caFile} cannot be read: ${(error as Error).message}`, { cause: error });
    }
  }

  /** `path` (with its query) on `member`'s HTTP API. */
  url(member: Member, path: string): string {
    return `${this.secure ? 'https' : 'http'}://${member.http}${path}`;
  }

  request(member: Member, path: string, options: PeerHttpRequest = {}): Promise<PeerHttpResponse> {
    const send = this.secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const outgoing = send(
        this.url(member, path),
        { method: options.method ?? 'GET', headers: options.headers, agent: this.agent, signal: options.signal },
        (body) => {
          const status = body.statusCode ?? 0;
          const text = async (): Promise<string> => {
            const chunks: Buffer[] = [];
            for await (const chunk of body) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks).toString('utf8');
          };
          resolve({
            status,
            ok: status >= 200 && status < 300,
            contentType: typeof body.headers['content-type'] === 'string' ? body.headers['content-type'] : null,
            body,
            text,
            json: async () => JSON.parse(await text()) as unknown,
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
