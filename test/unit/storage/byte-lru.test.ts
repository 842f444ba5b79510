import { strict as assert } from 'assert';
import { BloomCache } from '../../../storage/core/byte-lru';

describe('bloom cache', () => {
  it('keeps recently used filters within its byte budget and forgets a segment', () => {
    const cache = new BloomCache(30);
    cache.set('a/0', Buffer.alloc(10));
    cache.set('a/1', Buffer.alloc(10));
    cache.set('b/0', Buffer.alloc(10));
    assert.ok(cache.get('a/0') !== undefined); // a/0 is now the most recent
    cache.set('c/0', Buffer.alloc(10)); // evicts the least recent: a/1
    assert.equal(cache.get('a/1'), undefined);
    assert.ok(cache.get('a/0') !== undefined);
    assert.ok(cache.get('b/0') !== undefined);
    cache.forget('a', 2);
    assert.equal(cache.get('a/0'), undefined);
    cache.set('d/0', Buffer.alloc(10));
    cache.set('e/0', Buffer.alloc(40)); // larger than the budget: not kept
    assert.equal(cache.get('e/0'), undefined);
    assert.ok(cache.get('c/0') !== undefined && cache.get('d/0') !== undefined);
  });
});
