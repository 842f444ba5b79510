import { strict as assert } from 'assert';
import { distinctTokens, forEachToken, isTokenCode, tokenize } from '../../../storage/segment/tokenizer';

describe('segment tokenizer', () => {
  it('splits on everything but ASCII letters, digits, _ and non-ASCII', () => {
    assert.deepEqual(tokenize('GET /api/v1/users?id=42 HTTP/1.1'), ['get', 'api', 'v1', 'users', 'id', '42', 'http', '1', '1']);
    assert.deepEqual(tokenize('host=web-01 level:ERROR'), ['host', 'web', '01', 'level', 'error']);
    assert.deepEqual(tokenize('snake_case_Name'), ['snake_case_name']);
    assert.deepEqual(tokenize('10.0.0.1:8080'), ['10', '0', '0', '1', '8080']);
  });

  it('handles empty and separator-only text', () => {
    assert.deepEqual(tokenize(''), []);
    assert.deepEqual(tokenize('  ,;-- /\t\n'), []);
    assert.deepEqual(tokenize('a'), ['a']);
    assert.deepEqual(tokenize('-a-'), ['a']);
  });

  it('keeps non-ASCII characters inside tokens and lower-cases them', () => {
    assert.deepEqual(tokenize('Ünïcödé Straße'), ['ünïcödé', 'straße']);
    assert.deepEqual(tokenize('東京 エラー'), ['東京', 'エラー']);
    assert.deepEqual(tokenize('fire🔥Alarm'), ['fire🔥alarm']);
    // Combining marks (U+0301) are >= 128, so they stay in the token.
    assert.deepEqual(tokenize('Cafe\u0301 ok'), ['cafe\u0301', 'ok']);
    // Full Unicode lower-casing, e.g. the Kelvin sign becomes ASCII k.
    assert.deepEqual(tokenize('\u212A'), ['k']);
  });

  it('forEachToken yields duplicates in order; distinctTokens dedupes', () => {
    const seen: string[] = [];
    forEachToken('a B a b', (t) => seen.push(t));
    assert.deepEqual(seen, ['a', 'b', 'a', 'b']);
    assert.deepEqual(distinctTokens('a B a b'), ['a', 'b']);
  });

  it('isTokenCode matches the rule', () => {
    for (const ch of 'azAZ09_') assert.equal(isTokenCode(ch.charCodeAt(0)), true, ch);
    for (const ch of ' -./:=[]{}"\'\t\n\0\x7f') assert.equal(isTokenCode(ch.charCodeAt(0)), false, JSON.stringify(ch));
    assert.equal(isTokenCode(0x80), true);
    assert.equal(isTokenCode(0xd83d), true);
  });
});
