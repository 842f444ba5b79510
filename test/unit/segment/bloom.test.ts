import { strict as assert } from 'assert';
import fc from 'fast-check';
import { MAX_BLOOM_BITS, TokenHashSet, bloomMayContain, bloomMayContainAll, buildBloom } from '../../../storage/segment/bloom';
import { tokenize } from '../../../storage/segment/tokenizer';

function hashes(set: TokenHashSet): number[] {
  const out: number[] = [];
  set.forEach((h) => out.push(h));
  return out.sort((a, b) => a - b);
}

function randomToken(rnd: () => number): string {
  const len = 3 + Math.floor(rnd() * 10);
  let s = '';
  for (let i = 0; i < len; i++) s += 'abcdefghijklmnopqrstuvwxyz0123456789_'[Math.floor(rnd() * 37)];
  return s;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe('segment bloom filter', () => {
  it('has no false negatives and under 3% false positives on 100k random tokens (8 bits a token)', () => {
    const rnd = lcg(42);
    const inserted = new Set<string>();
    while (inserted.size < 100_000) inserted.add(randomToken(rnd));
    const set = new TokenHashSet();
    for (const t of inserted) set.addToken(t);
    // Hashes are 32-bit: ~1 collision is expected among 100k tokens (harmless: same bits).
    assert.ok(set.size >= inserted.size - 10, `${set.size}`);
    const { bits, meta } = buildBloom(set);
    assert.equal(meta.tokens, set.size);
    assert.equal(meta.bits % 64, 0);
    assert.equal(bits.length * 8, meta.bits);
    assert.equal(meta.hashes, 6);
    for (const t of inserted) assert.ok(bloomMayContain(bits, meta, t), t);
    let falsePositives = 0;
    let probes = 0;
    while (probes < 100_000) {
      const t = randomToken(rnd);
      if (inserted.has(t)) continue;
      probes++;
      if (bloomMayContain(bits, meta, t)) falsePositives++;
    }
    const fpr = falsePositives / probes;
    assert.ok(fpr < 0.03, `false positive rate ${fpr}`);
  });

  it('honours the configured density and the size cap', () => {
    const set = new TokenHashSet();
    for (let i = 0; i < 1000; i++) set.addToken(`t${i}`);
    const sparse = buildBloom(set, 20);
    assert.equal(sparse.meta.bits, 20032);
    assert.equal(sparse.meta.hashes, 14);
    const capped = buildBloom(set, 10, 640);
    assert.equal(capped.meta.bits, 640);
    assert.equal(capped.bits.length, 80);
    for (let i = 0; i < 1000; i++) assert.ok(bloomMayContain(capped.bits, capped.meta, `t${i}`));
    assert.equal(MAX_BLOOM_BITS, 8 * 1024 * 1024 * 8);
  });

  it('an empty token set gives a 0-bit filter that matches nothing', () => {
    const { bits, meta } = buildBloom(new TokenHashSet());
    assert.deepEqual(meta, { bits: 0, hashes: 0, tokens: 0 });
    assert.equal(bloomMayContain(bits, meta, 'x'), false);
    // A filter recorded as absent (tokens but no bits) cannot prune.
    assert.equal(bloomMayContain(bits, { bits: 0, hashes: 0, tokens: 5 }, 'x'), true);
  });

  it('bloomMayContainAll needs every token', () => {
    const set = new TokenHashSet();
    set.addText('connection reset by peer');
    const { bits, meta } = buildBloom(set);
    assert.ok(bloomMayContainAll(bits, meta, ['connection', 'reset']));
    assert.ok(bloomMayContainAll(bits, meta, []));
    assert.equal(bloomMayContainAll(bits, meta, ['connection', 'zzzzqqqq-not-there']), false);
  });

  it('addText hashes exactly the tokenizer tokens (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const inline = new TokenHashSet();
        inline.addText(text);
        const viaTokens = new TokenHashSet();
        for (const t of tokenize(text)) viaTokens.addToken(t);
        assert.deepEqual(hashes(inline), hashes(viaTokens));
      }),
      { numRuns: 2000 },
    );
  });

  it('addUtf8 (byte path) agrees with addText', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 20 }), (ascii, uni) => {
        for (const text of [ascii, uni, ascii + uni]) {
          const bytes = Buffer.from(`xx${text}`, 'utf8');
          const a = new TokenHashSet();
          a.addUtf8(text, bytes, 2, bytes.length);
          const b = new TokenHashSet();
          b.addText(text);
          assert.deepEqual(hashes(a), hashes(b));
          // With a byte after the range: the sentinel path, which must restore that byte.
          const padded = Buffer.from(`xx${text}yz`, 'utf8');
          const p = new TokenHashSet();
          p.addUtf8(text, padded, 2, padded.length - 2);
          assert.deepEqual(hashes(p), hashes(b));
          assert.equal(padded.toString('utf8', padded.length - 2), 'yz');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('dedupes hashes, including 0', () => {
    const set = new TokenHashSet();
    for (let r = 0; r < 3; r++) for (let i = 0; i < 50_000; i++) set.addHash(Math.imul(i, 0x9e3779b1));
    assert.equal(set.size, 50_000);
    let n = 0;
    set.forEach(() => n++);
    assert.equal(n, 50_000);
  });

  it('merges one set into another as adding each hash would, and lists the hashes (property)', () => {
    const hashList = fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.integer()), { maxLength: 3000 });
    fc.assert(
      fc.property(hashList, hashList, fc.nat(5000), (mine, theirs, expected) => {
        const merged = new TokenHashSet(expected);
        const each = new TokenHashSet();
        const other = new TokenHashSet();
        for (const h of mine) {
          merged.addHash(h);
          each.addHash(h);
        }
        for (const h of theirs) {
          other.addHash(h);
          each.addHash(h);
        }
        merged.addAll(other);
        assert.equal(merged.size, each.size);
        assert.deepEqual(hashes(merged), hashes(each));
        assert.deepEqual(
          Array.from(merged.toArray()).sort((a, b) => a - b),
          hashes(each),
        );
        assert.deepEqual(buildBloom(merged).bits, buildBloom(each).bits);
      }),
      { numRuns: 300 },
    );
  });
});
