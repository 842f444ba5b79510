/**
 * A cluster of two real nodes with `tls.enabled` and `tls.ca_file` (a CA and node certificates for
 * 127.0.0.1 made here with openssl): HTTP between nodes goes over HTTPS, and gRPC over mutual TLS.
 * A job created on one node is read through the other, the job list through either is whole, and
 * a removal asked of the node that is not the master is passed to the master. A stranger without a
 * certificate the CA signed cannot open a gRPC connection (each refusal counted); SIGHUP re-reads
 * the certificate files (a broken pair is refused and the old one kept), and the cluster keeps
 * working over the new certificate; each reload, failed or not, is in the audit log once, by the
 * signal.
 */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import fs from 'fs';
import https from 'https';
import net from 'net';
import path from 'path';
import tls from 'tls';
import * as grpc from '@grpc/grpc-js';
import { waitUntil } from '../helpers/api';
import { freePort, tempDir, TestServer } from '../helpers/server';
import { FAST_MEMBERSHIP } from './helpers/clustered-servers';

interface Answer {
  status: number;
  body: any;
}

/** What the tests read of an audit entry. */
interface ReloadEntry {
  action: string;
  outcome: string;
  node: string;
  method: string | null;
  client_ip: string | null;
  path: string | null;
  reason: string | null;
}

/** Runs openssl in `dir`. */
function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A P-256 key and a certificate for 127.0.0.1 named `name`, signed by the CA in `dir` (or self-signed without one). */
function makeCertificate(dir: string, name: string, signedByCa: boolean): { cert: string; key: string } {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.pem`);
  const keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key];
  if (!signedByCa) {
    openssl(dir, [
      'req',
      '-x509',
      ...keyArgs,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    return { cert, key };
  }
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(dir, ['req', ...keyArgs, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '1',
    '-extfile',
    'san.ext',
  ]);
  return { cert, key };
}

/** The common name of the certificate a TLS server at `port` presents to a new connection (as node `client`). */
function presentedName(port: number, options: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ...options }, () => {
      const name = socket.getPeerCertificate().subject.CN;
      socket.destroy();
      resolve(Array.isArray(name) ? name.join(',') : (name ?? ''));
    });
    socket.once('error', reject);
  });
}

/** Whether the server at `port` ends a connection made with `options` without completing a TLS session that can carry a request. */
function refusedConnection(port: number, options: tls.ConnectionOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ALPNProtocols: ['h2'], ...options });
    // TLS 1.3 completes the client's side before the server checked the client's certificate: the server then closes.
    socket.once('secureConnect', () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    socket.once('error', () => resolve(true));
    socket.once('close', () => resolve(true));
    socket.once('data', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('a cluster with tls.enabled and tls.ca_file: HTTPS and mutual TLS between nodes', function () {
  this.timeout(120_000);
  const dir = tempDir('trawl-cluster-tls-');
  // What the nodes read: node-a's certificate at first, replaced by node-b's later.
  const cert = path.join(dir, 'served.pem');
  const key = path.join(dir, 'served.key');
  let ca: Buffer;
  let nodeA: { cert: string; key: string };
  let nodeB: { cert: string; key: string };
  let stranger: { cert: string; key: string };
  const grpcPorts: number[] = [];
  const nodes: { id: string; port: number; server: TestServer }[] = [];

  /** A JSON request to a node over HTTPS, trusting the test's certificate only. */
  const call = (port: number, route: string, method = 'GET', body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const outgoing = https.request(
        {
          host: '127.0.0.1',
          port,
          path: `/api/v1${route}`,
          method,
          ca,
          headers: payload === undefined ? {} : { 'content-type': 'application/json' },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });

  before(async () => {
    openssl(dir, [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=trawl test CA',
    ]);
    nodeA = makeCertificate(dir, 'node-a', true);
    nodeB = makeCertificate(dir, 'node-b', true);
    stranger = makeCertificate(dir, 'stranger', false);
    fs.copyFileSync(nodeA.cert, cert);
    fs.copyFileSync(nodeA.key, key);
    ca = fs.readFileSync(path.join(dir, 'ca.pem'));
    grpcPorts.push(await freePort(), await freePort());
    const seeds = grpcPorts.map((port) => `127.0.0.1:${port}`).join(',');
    const set = {
      ...FAST_MEMBERSHIP,
      'tls.enabled': true,
      'tls.cert_file': cert,
      'tls.key_file': key,
      'tls.ca_file': path.join(dir, 'ca.pem'),
    };
    await Promise.all(
      grpcPorts.map(async (grpcPort, i) => {
        const id = `node${i + 1}`;
        const port = await freePort();
        const server = await TestServer.start({
          port,
          set,
          args: ['--node-id', id, '--grpc-listen', `127.0.0.1:${grpcPort}`, '--seeds', seeds],
        });
        nodes[i] = { id, port, server };
      }),
    );
    for (const node of nodes) {
      await waitUntil(
        async () => (await call(node.port, '/cluster/status')).body?.data?.status === 'healthy',
        30_000,
        `${node.id} to see the cluster healthy`,
      );
    }
  });

  after(async () => {
    await Promise.all(nodes.map((node) => node.server.kill()));
  });

  it('a job created on one node is read through the other, and the job list through either is whole', async () => {
    const [first, second] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const created = await call(first.port, '/query', 'POST', { q: 'from main | stats count() as n', wait: 0 });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const jobId = created.body.data.job_id as string;
    await waitUntil(
      async () => (await call(first.port, `/query/jobs/${jobId}`)).body?.data?.status === 'done',
      10_000,
      'the job to finish',
    );

    const read = await call(second.port, `/query/jobs/${jobId}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.data.status, 'done');

    const own = await call(second.port, '/query', 'POST', { q: 'from main | head 1', wait: 0 });
    assert.equal(own.status, 202);
    for (const node of nodes) {
      const list = await call(node.port, '/query/jobs');
      assert.equal(list.status, 200);
      assert.equal(list.body.meta?.partial, undefined, `the list through ${node.id} is whole: ${JSON.stringify(list.body)}`);
      const ids = (list.body.data.jobs as { job_id: string }[]).map((job) => job.job_id);
      assert.ok(ids.includes(jobId) && ids.includes(own.body.data.job_id), `${node.id} lists both jobs: ${ids.join(', ')}`);
    }
  });

  /** The Prometheus text of a node, over HTTPS. */
  const metricsText = (port: number): Promise<string> =>
    new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/metrics', ca }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
  const tlsRefusedCount = async (port: number): Promise<number> => {
    const line = (await metricsText(port)).split('\n').find((row) => row.startsWith('trawl_grpc_tls_refused_total '));
    assert.ok(line !== undefined, 'trawl_grpc_tls_refused_total is exposed');
    return Number(line.split(' ')[1]);
  };
  const asNode = (files: { cert: string; key: string }): tls.ConnectionOptions => ({
    ca,
    cert: fs.readFileSync(files.cert),
    key: fs.readFileSync(files.key),
  });

  it('the gRPC port speaks TLS with the node certificate, and takes a peer presenting one the CA signed', async () => {
    assert.equal(await presentedName(grpcPorts[0]!, asNode(nodeA)), 'node-a');
    assert.equal(await refusedConnection(grpcPorts[0]!, asNode(nodeA)), false, 'a peer with a certificate of the CA gets an HTTP/2 answer');
  });

  it('a stranger cannot connect to the gRPC port: plain text, no certificate, or one the CA did not sign; each refusal is counted', async () => {
    const [first] = nodes as [(typeof nodes)[0]];
    const before = await tlsRefusedCount(first.port);
    const plain = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: grpcPorts[0]! }, () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
      socket.once('data', () => resolve(false));
      socket.once('close', () => resolve(true));
      socket.once('error', () => resolve(true));
    });
    assert.equal(plain, true, 'a plain-text HTTP/2 connection is closed');
    assert.equal(await refusedConnection(grpcPorts[0]!, { ca }), true, 'a TLS client without a certificate is refused');
    assert.equal(await refusedConnection(grpcPorts[0]!, asNode(stranger)), true, 'a self-signed certificate is refused');
    await waitUntil(async () => (await tlsRefusedCount(first.port)) === before + 3, 5_000, 'the three refusals to be counted');
    assert.equal(await tlsRefusedCount(first.port), before + 3);
    assert.match(first.server.log, /refused a gRPC connection from 127\.0\.0\.1:\d+ in its TLS handshake/);

    // What a gRPC client without a certificate sees: the call never reaches a handler.
    const client = new grpc.Client(`127.0.0.1:${grpcPorts[0]}`, grpc.credentials.createSsl(ca));
    const status = await new Promise<grpc.status>((resolve) =>
      client.makeUnaryRequest(
        '/trawl.Membership/Heartbeat',
        (value: Buffer) => value,
        (value: Buffer) => value,
        Buffer.alloc(0),
        { deadline: Date.now() + 5_000 },
        (error) => resolve(error === null ? grpc.status.OK : error.code),
      ),
    );
    client.close();
    assert.equal(status, grpc.status.UNAVAILABLE);
  });

  /** The audit log's `tls.reload` entries, read through the node at `port`, once `ready` holds of them. */
  const reloadEntries = async (port: number, ready: (entries: ReloadEntry[]) => boolean, what: string): Promise<ReloadEntry[]> => {
    let entries: ReloadEntry[] = [];
    await waitUntil(
      async () => {
        const answer = await call(port, '/audit?limit=1000');
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        entries = (answer.body.data.entries as ReloadEntry[]).filter((entry) => entry.action === 'tls.reload');
        return ready(entries);
      },
      10_000,
      what,
    ).catch((error: Error) => assert.fail(`${error.message}; the entries: ${JSON.stringify(entries)}`));
    return entries;
  };

  it('SIGHUP with a key that does not match the certificate keeps the certificate in use', async () => {
    const [first] = nodes as [(typeof nodes)[0]];
    fs.copyFileSync(nodeB.cert, cert);
    fs.copyFileSync(stranger.key, key);
    first.server.process.kill('SIGHUP');
    await first.server.waitFor(/tls: reload failed, keeping the certificate in use/, 10_000);
    assert.equal(await presentedName(grpcPorts[0]!, asNode(nodeA)), 'node-a');
    assert.equal(await presentedName(first.port, { ca }), 'node-a');
    // The failed reload is in the audit log, by the signal (no key, no client, no path), read through the other node.
    const entries = await reloadEntries(nodes[1]!.port, (all) => all.length > 0, 'the failed tls.reload entry');
    assert.deepEqual(
      entries.map(({ outcome, node, method, client_ip, path, reason }) => ({ outcome, node, method, client_ip, path, reason })),
      [{ outcome: 'failure', node: first.id, method: 'SIGHUP', client_ip: null, path: null, reason: 'VALIDATION_ERROR' }],
    );
  });

  it('SIGHUP re-reads the certificate files: new HTTPS and gRPC connections get the new one, and the cluster keeps working', async () => {
    fs.copyFileSync(nodeB.cert, cert);
    fs.copyFileSync(nodeB.key, key);
    for (const node of nodes) node.server.process.kill('SIGHUP');
    for (const [i, node] of nodes.entries()) {
      await node.server.waitFor(/tls: certificate reloaded; new connections use it \(valid until \d{4}-/, 10_000);
      assert.equal(await presentedName(node.port, { ca }), 'node-b', `${node.id} HTTPS`);
      assert.equal(await presentedName(grpcPorts[i]!, asNode(nodeB)), 'node-b', `${node.id} gRPC`);
    }
    // Each node's reload is in the audit log once, a success by the signal.
    const succeeded = (all: ReloadEntry[]): ReloadEntry[] => all.filter((entry) => entry.outcome === 'success');
    const entries = await reloadEntries(nodes[0]!.port, (all) => succeeded(all).length >= nodes.length, 'a tls.reload entry of each node');
    assert.deepEqual(
      succeeded(entries)
        .map(({ node, method, client_ip, path }) => ({ node, method, client_ip, path }))
        .sort((a, b) => a.node.localeCompare(b.node)),
      nodes.map((node) => ({ node: node.id, method: 'SIGHUP', client_ip: null, path: null })).sort((a, b) => a.node.localeCompare(b.node)),
    );
    // Peers' channels are made anew with node-b's certificate: a query through the second node asks the first over them.
    const [first, second] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const marker = `after-reload-${Date.now()}`;
    const ingest = await call(first.port, '/ingest', 'POST', [{ event: 'written after the certificate reload', fields: { marker } }]);
    assert.equal(ingest.status, 200, JSON.stringify(ingest.body));
    let last: Answer | null = null;
    await waitUntil(
      async () => {
        const answer = (last = await call(second.port, '/query', 'POST', {
          q: `from main | where marker = "${marker}" | stats count() as n`,
          from: '-1h',
          to: 'now',
        }));
        return answer.status === 200 && answer.body.meta?.partial !== true && answer.body.data?.rows?.[0]?.[0] === 1;
      },
      15_000,
      'the event ingested through node1 to be counted once through node2',
    ).catch((error: Error) => assert.fail(`${error.message}; the last answer: ${JSON.stringify(last)}`));
  });

  it('a removal asked of the node that is not the master is passed to the master', async () => {
    const answer = await call(nodes[1]!.port, '/cluster/nodes/node2/remove', 'POST');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.removed, true);
    assert.deepEqual(answer.body.data.ring, ['node1']);
  });
});
