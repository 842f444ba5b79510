/**
 * The ids of share parts an owner applied (applied-shares.ts): a part is applied once however
 * often and however concurrently it comes, and an origin's ids well behind the floor it reports
 * are forgotten while newer ones are kept.
 */
import { strict as assert } from 'assert';
import { AppliedShares, FLOOR_MARGIN_MS } from '../../../node/cluster/applied-shares';
import type { StorageEngine } from '../../../storage/engine';
import type { WriteOp } from '../../../storage/core/rocks';
import { openTestEngine } from '../../helpers/engine';

const idAt = (ms: number, part = 0): string => `${String(ms).padStart(13, '0')}-0123456789abcdef-${part}`;

describe('applied shares', () => {
  let engine: StorageEngine;

  before(async () => {
    engine = await openTestEngine();
  });

  after(async () => {
    await engine.close();
  });

  it('applies a part once, however many copies come at once or after', async () => {
    const shares = new AppliedShares(engine.records('applied-shares-once'));
    let applied = 0;
    // As the owner does: the mark commits in the batch that appends the part's events.
    const apply = async (mark: WriteOp): Promise<void> => {
      applied++;
      await engine.rocks.write([mark]);
    };
    const copies = await Promise.all([1, 2, 3].map(() => shares.applyOnce('node1', idAt(1_000), apply)));
    assert.deepEqual(copies.filter(Boolean).length, 1);
    assert.equal(await shares.applyOnce('node1', idAt(1_000), apply), false);
    assert.equal(await shares.applyOnce('node2', idAt(1_000), apply), true, 'another origin has ids of its own');
    assert.equal(applied, 2);
  });

  it("forgets an origin's ids older than its floor less the margin, and keeps the rest", async () => {
    const records = engine.records('applied-shares-floor');
    let now = 10 * FLOOR_MARGIN_MS;
    const shares = new AppliedShares(records, () => now);
    const times = [1_000, FLOOR_MARGIN_MS, 3 * FLOOR_MARGIN_MS, 5 * FLOOR_MARGIN_MS];
    await records.write([
      ...times.map((ms) => ({ key: `node1/${idAt(ms)}`, value: Buffer.from('1') })),
      { key: `node2/${idAt(1_000)}`, value: Buffer.from('1') },
    ]);
    shares.floor('node1', 4 * FLOOR_MARGIN_MS);
    await shares.settled();
    const left: string[] = [];
    for await (const { key } of records.scan()) left.push(key);
    assert.deepEqual(left, [`node1/${idAt(3 * FLOOR_MARGIN_MS)}`, `node1/${idAt(5 * FLOOR_MARGIN_MS)}`, `node2/${idAt(1_000)}`]);
    // Sweeps of one origin are spaced out; a later one goes further.
    shares.floor('node1', 9 * FLOOR_MARGIN_MS);
    await shares.settled();
    now += 60_000;
    shares.floor('node1', 9 * FLOOR_MARGIN_MS);
    await shares.settled();
    const after: string[] = [];
    for await (const { key } of records.scan()) after.push(key);
    assert.deepEqual(after, [`node2/${idAt(1_000)}`]);
  });
});
