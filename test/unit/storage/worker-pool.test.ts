/**
 * The worker pool stops a worker left idle for `idleStopMs` (its heap goes with it) and starts one
 * again for the next request; a worker with a request in flight is never stopped.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import path from 'path';
import { WorkerPool } from '../../../storage/threads/worker-pool';
import { waitUntil } from '../../helpers/api';
import { tempDir } from '../../helpers/server';

/** A worker that answers each request after `delayMs` with its id and its thread id. */
const ECHO_WORKER = `
const { parentPort, threadId } = require('worker_threads');
parentPort.on('message', (request) => setTimeout(() => parentPort.postMessage({ id: request.id, threadId }), request.delayMs));
`;

describe('worker pool: idle workers stop and start again on demand', () => {
  const script = path.join(tempDir('trawl-worker-pool-'), 'echo-worker.js');
  fs.writeFileSync(script, ECHO_WORKER);

  it('stops a worker idle for idleStopMs, and the next request starts a new one', async () => {
    const pool = new WorkerPool<{ id: number; threadId: number }>(script, 2, { idleStopMs: 100 });
    try {
      const first = await pool.request({ delayMs: 0 });
      assert.equal(pool.running, 1);
      await waitUntil(() => pool.running === 0, 5_000, 'the idle worker to stop');
      assert.equal(pool.idleStops, 1);
      const second = await pool.request({ delayMs: 0 });
      assert.notEqual(second.threadId, first.threadId, 'a new thread answers');
      assert.equal(pool.running, 1);
    } finally {
      await pool.close();
    }
  });

  it('never stops a worker with a request in flight, however long it takes', async () => {
    const pool = new WorkerPool<{ id: number; threadId: number }>(script, 1, { idleStopMs: 50 });
    try {
      const slow = pool.request({ delayMs: 300 });
      // A second request on the same (only) worker re-arms nothing while the first is in flight.
      const quick = await pool.request({ delayMs: 0 });
      const answered = await slow;
      assert.equal(answered.threadId, quick.threadId);
      assert.equal(pool.idleStops, 0, 'busy the whole time');
      await waitUntil(() => pool.running === 0, 5_000, 'the worker to stop once idle');
    } finally {
      await pool.close();
    }
  });
});
