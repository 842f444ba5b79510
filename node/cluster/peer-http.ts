/**
 * Calls from this node to another member's HTTP API (job forwarding, the cluster's job list, a
 * removal passed to the master). Every node of a cluster serves the same scheme, so a node that
 * serves HTTPS (`tls.enabled`) calls the others over HTTPS, trusting `tls.ca_file` when set and the
 * system's CAs otherwise (re-read on SIGHUP); one connection pool per node.
 */
import http from 'http';
import https from 'https';
import type { TlsFiles, TlsMaterial } from '../core/tls-material';
import type { Member } from './cluster-state';
import { signProof, PROOF_KEY } from './grpc/call-proof';
import { forwardProofSubject } from './forward-mark';

/** Who this node is and the cluster's secret: each request carries the proof of it (forward-mark.ts). */
export interface PeerHttpIdentity {
  nodeId: string;
  secret: string | null;
}

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
  private agent: http.Agent;

  /** @param tls the node's certificate when `tls.enabled` (calls go over HTTPS, trusting its CA); null: plain HTTP. */
  constructor(
    private readonly tls: TlsMaterial | null = null,
    private readonly identity: PeerHttpIdentity | null = null,
  ) {
    this.agent = PeerHttp.agentOf(tls?.files ?? null, tls !== null);
    // A reloaded CA applies to the connections made after it; the old pool's requests finish, and
    // its idle connections are closed by the other side's keep-alive timeout.
    tls?.onChange((files) => (this.agent = PeerHttp.agentOf(files, true)));
  }

  private static agentOf(files: TlsFiles | null, secure: boolean): http.Agent {
    if (!secure) return new http.Agent({ keepAlive: true });
    return new https.Agent({ keepAlive: true, ...(files?.ca == null ? {} : { ca: files.ca }) });
  }

  get secure(): boolean {
    return this.tls !== null;
  }

  /** `path` (with its query) on `member`'s HTTP API. */
  url(member: Member, path: string): string {
    return `${this.secure ? 'https' : 'http'}://${member.http}${path}`;
  }

  request(member: Member, path: string, options: PeerHttpRequest = {}): Promise<PeerHttpResponse> {
    const send = this.secure ? https.request : http.request;
    const method = options.method ?? 'GET';
    const headers = { ...options.headers };
    const { identity } = this;
    if (identity?.secret != null) headers[PROOF_KEY] = signProof(identity.secret, identity.nodeId, forwardProofSubject(method, path));
    return new Promise((resolve, reject) => {
      const outgoing = send(this.url(member, path), { method, headers, agent: this.agent, signal: options.signal }, (body) => {
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
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
