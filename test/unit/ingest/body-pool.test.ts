import { strict as assert } from 'assert';
import { BodyPool } from '../../../node/body-pool';

describe('body pool', () => {
  it('hands out memory that fits, reuses the smallest free buffer that does, and knows its own', () => {
    const pool = new BodyPool();
    const a = pool.take(3_000_000);
    assert.ok(a.byteLength >= 3_000_000);
    assert.equal(a.byteLength % (1024 * 1024), 0);
    assert.ok(pool.owns(a));
    assert.equal(pool.owns(new ArrayBuffer(10)), false);
    assert.equal(pool.owns(new SharedArrayBuffer(10)), false);
    const b = pool.take(6_000_000);
    pool.give(b);
    pool.give(a);
    assert.equal(pool.freeBuffers, 2);
    assert.equal(pool.take(1_000_000), a, 'the smallest that fits');
    assert.equal(pool.take(1_000_000), b);
    const c = pool.take(1_000_000);
    assert.ok(c !== a && c !== b, 'nothing free: a new buffer');
  });

  it('takes back memory a worker moved (a new ArrayBuffer object), ignores detached memory, and keeps a few', () => {
    const pool = new BodyPool();
    const memory = pool.take(100_000);
    // What a worker's answer does: the same memory arrives as another ArrayBuffer object.
    const moved = structuredClone(memory, { transfer: [memory] });
    assert.equal(memory.byteLength, 0);
    pool.give(memory);
    assert.equal(pool.freeBuffers, 0, 'detached memory is not kept');
    pool.give(moved);
    pool.give(moved);
    assert.equal(pool.freeBuffers, 1, 'memory given back twice is listed once');
    assert.ok(pool.owns(moved));
    for (let i = 0; i < 20; i++) pool.give(new ArrayBuffer(1024 * 1024 * (i + 1)));
    assert.equal(pool.freeBuffers, 8);
    assert.ok(pool.take(20 * 1024 * 1024).byteLength === 20 * 1024 * 1024, 'the largest were kept');
  });
});
