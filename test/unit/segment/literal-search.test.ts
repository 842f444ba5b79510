import { strict as assert } from 'assert';
import { valueAt } from '../../../storage/core/column';
import { ColumnEncoding } from '../../../storage/segment/block-envelope';
import { ByteReader, ByteWriter } from '../../../storage/segment/bytes';
import {
  decodeColumnBlock,
  decodeColumnBlockMatching,
  decodeColumnBlockRows,
  encodeColumnBlock,
} from '../../../storage/segment/column-codec';
import { LiteralByteSearch } from '../../../storage/segment/literal-search';
import { readStringListMatching, writeStringList } from '../../../storage/segment/string-list';
import { literalMatcher } from '../../../query/exec/text-match';

/** True when the byte search admits `text` (its UTF-8) as a candidate for `literal`. */
function mayMatch(literal: string, text: string): boolean {
  const search = LiteralByteSearch.of(literal);
  if (search === null) return true;
  const bytes = Buffer.from(text, 'utf8');
  return search.mayMatch(bytes, 0, bytes.length);
}

/** Deterministic pseudo-random texts over an alphabet that stresses case and token boundaries. */
function randomTexts(count: number, seed: number): string[] {
  const alphabet = [
    'a',
    'B',
    'c',
    'E',
    'r',
    'o',
    'R',
    'x',
    '7',
    '_',
    ' ',
    '-',
    '=',
    '.',
    '/',
    'é',
    'É',
    'ß',
    'K',
    'k',
    '\u212A',
    'ſ',
    's',
    'S',
    '東',
    '🔥',
    'İ',
    'ı',
    'i',
    'I',
  ];
  let state = seed;
  const next = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = '';
    const length = next(24);
    for (let j = 0; j < length; j++) text += alphabet[next(alphabet.length)];
    out.push(text);
  }
  return out;
}

describe('literal byte search', () => {
  it('finds a literal case-insensitively as a whole token', () => {
    assert.equal(mayMatch('zq7needlexv', 'GET /x trace=zq7needlexv 200'), true);
    assert.equal(mayMatch('zq7needlexv', 'trace=ZQ7NeedleXV'), true);
    assert.equal(mayMatch('zq7needlexv', 'zq7needlexv'), true);
    assert.equal(mayMatch('zq7needlexv', 'xzq7needlexv'), false);
    assert.equal(mayMatch('zq7needlexv', 'zq7needlexv_2'), false);
    assert.equal(mayMatch('zq7needlexv', 'zq7needlex'), false);
    assert.equal(mayMatch('error', 'errors and terror'), false);
    assert.equal(mayMatch('error', 'errors, then ERROR.'), true);
  });

  it('treats non-ASCII characters as token characters at the boundaries', () => {
    assert.equal(mayMatch('cafe', 'caféine'), false);
    assert.equal(mayMatch('cafe', 'écafe'), false);
    assert.equal(mayMatch('cafe', '東cafe'), false);
    assert.equal(mayMatch('cafe', '"cafe"'), true);
  });

  it('phrases keep their inner separators and check boundaries only at token ends', () => {
    assert.equal(mayMatch('GET /api', 'x GET /api/v1'), true);
    assert.equal(mayMatch('GET /api', 'xGET /api'), false);
    assert.equal(mayMatch('/api/', 'v1/api/v2'), true);
    assert.equal(mayMatch('a-b', 'x a-B y'), true);
  });

  it('non-ASCII literals search their longest ASCII run; without one there is no byte condition', () => {
    assert.equal(LiteralByteSearch.of('東京'), null);
    assert.equal(mayMatch('Straße', 'STRAßE'), true);
    assert.equal(mayMatch('Straße', 'Strudel'), false);
    assert.equal(mayMatch('caféx', 'CAFÉX'), true); // é vs É is left to the exact test
    assert.equal(mayMatch('caféx', 'xcaféx'), false); // the anchor starts the literal: its start boundary holds
  });

  it('never rejects a text the query-side matcher accepts (and agrees exactly on ASCII literals)', () => {
    const texts = randomTexts(3000, 7);
    const literals = ['err', 'ERROR', 'k', 's', 'i', 'x7', 'b-c', 'é', 'cé', 'Éx', 'a_b', '7', '_', 'ro r', 'ſ', 'K', '🔥a', 'ı'];
    for (const literal of literals) {
      const exact = literalMatcher(literal);
      // eslint-disable-next-line no-control-regex -- the ASCII range starts at \x00
      const ascii = /^[\x00-\x7f]*$/.test(literal);
      for (const text of texts) {
        const candidate = mayMatch(literal, text);
        if (exact.test(text)) assert.equal(candidate, true, `${JSON.stringify(literal)} in ${JSON.stringify(text)}`);
        else if (ascii) assert.equal(candidate, false, `${JSON.stringify(literal)} not in ${JSON.stringify(text)}`);
      }
    }
  });

  it('finds every occurrence, including ones at the ends of the range and long anchors', () => {
    const long = 'x'.repeat(40) + 'Y';
    const text = Buffer.from(`${long} ab ${long.toUpperCase()}`);
    const search = LiteralByteSearch.of(long.toLowerCase())!;
    const hits: number[] = [];
    for (let at = search.find(text, 0, text.length); at !== -1; at = search.find(text, at + 1, text.length)) hits.push(at);
    assert.deepEqual(hits, [0, 45]);
    const one = LiteralByteSearch.of('b')!;
    assert.equal(one.find(Buffer.from('aaB'), 0, 3), 2);
    assert.equal(one.find(Buffer.from('aaB'), 0, 2), -1);
  });
});

describe('string list search', () => {
  const rows = ['first row', null, 'GET zq7needlexv', 'ünïcödé zq7NEEDLExv', '', 'zq7needlexv_no', 'tail zq7needlexv', '🔥 zq7needlexv 🔥'];

  function written(values: (string | null)[]): Buffer {
    const w = new ByteWriter();
    writeStringList(w, values, 0, values.length, true);
    return w.buf.subarray(0, w.pos);
  }

  it('makes strings of the matching rows only, in ASCII and UTF-8 chunks', () => {
    // eslint-disable-next-line no-control-regex -- the ASCII range starts at \x00
    for (const values of [rows.filter((row) => row === null || /^[\x00-\x7f]*$/.test(row)), rows]) {
      const payload = written(values);
      const search = LiteralByteSearch.of('zq7needlexv')!;
      const matched = readStringListMatching(payload, new ByteReader(payload), values.length, true, [search]);
      const expected = values.flatMap((value, i) => (value !== null && literalMatcher('zq7needlexv').test(value) ? [i] : []));
      assert.deepEqual([...matched.listed()], expected);
      const column = matched.column();
      for (let i = 0; i < values.length; i++) assert.equal(valueAt(column, i), expected.includes(i) ? values[i] : null);
    }
  });

  it('requires every literal in the same row', () => {
    const payload = written(rows);
    const searches = [LiteralByteSearch.of('zq7needlexv')!, LiteralByteSearch.of('get')!];
    const { rows: found, count } = readStringListMatching(payload, new ByteReader(payload), rows.length, true, searches);
    assert.deepEqual([...found.subarray(0, count)], [2]);
  });

  it('a plain string block decodes for a search, or for chosen rows; other encodings decode whole', () => {
    const values = Array.from({ length: 600 }, (_, i) => (i === 321 ? `row ${i} Needle` : `row ${i} hay`));
    const { data, summary } = encodeColumnBlock(values, 0, values.length, 3);
    assert.equal(summary.encoding, ColumnEncoding.String);
    const matched = decodeColumnBlockMatching(data, [LiteralByteSearch.of('needle')!]);
    assert.deepEqual(matched.rows === null ? null : [...matched.rows], [321]);
    assert.equal(valueAt(matched.column, 321), 'row 321 Needle');
    const some = decodeColumnBlockRows(data, [5, 599]);
    assert.equal(valueAt(some, 5), 'row 5 hay');
    assert.equal(valueAt(some, 599), 'row 599 hay');
    const dict = encodeColumnBlock(['a', 'b', 'a'], 0, 3, 3).data;
    assert.deepEqual(decodeColumnBlockMatching(dict, [LiteralByteSearch.of('a')!]), { column: decodeColumnBlock(dict), rows: null });
  });
});
