/**
 * A cluster of two real nodes serving HTTPS (`tls.enabled`, a self-signed certificate made here for
 * 127.0.0.1, trusted through `tls.ca_file`): what one node asks of another over HTTP goes over
 * HTTPS too. A job created on one node is read through the other, the job list through either is
 * whole, and a removal asked of the node that is not the master is passed to the master.
 */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import fs from 'fs';
import https from 'https';
import path from 'path';
import { waitUntil } from '../helpers/api';
import { freePort, tempDir, TestServer } from '../helpers/server';
import { FAST_MEMBERSHIP } from './helpers/clustered-servers';

interface Answer {
  status: number;
  body: any;
}

describe('a cluster with tls.enabled: node-to-node HTTP over HTTPS', function () {
  this.timeout(120_000);
  const dir = tempDir('trawl-cluster-tls-');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  let ca: Buffer;
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
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    ca = fs.readFileSync(cert);
    const grpcPorts = [await freePort(), await freePort()];
    const seeds = grpcPorts.map((port) => `127.0.0.1:${port}`).join(',');
    const set = { ...FAST_MEMBERSHIP, 'tls.enabled': true, 'tls.cert_file': cert, 'tls.key_file': key, 'tls.ca_file': cert };
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

  it('a removal asked of the node that is not the master is passed to the master', async () => {
    const answer = await call(nodes[1]!.port, '/cluster/nodes/node2/remove', 'POST');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.removed, true);
    assert.deepEqual(answer.body.data.ring, ['node1']);
  });
});
