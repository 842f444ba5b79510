import { strict as assert } from 'assert';
import { urlDecode } from '../../../query/functions/string';
import { call, make, NOW } from './helpers';

describe('functions: strings', () => {
  it('lower / upper: text, null, numbers and booleans as text, times as ISO', () => {
    assert.equal(call('lower', 'HeLLo ÄÖ'), 'hello äö');
    assert.equal(call('upper', 'straße'), 'STRASSE');
    assert.equal(call('lower', null), null);
    assert.equal(call('upper', 1.5), '1.5');
    assert.equal(call('upper', true), 'TRUE');
    assert.equal(make('lower', ['time']).call([0]), '1970-01-01t00:00:00.000z');
    assert.equal(call('lower', ''), '');
  });

  it('len counts code points', () => {
    assert.equal(call('len', 'abc'), 3);
    assert.equal(call('len', ''), 0);
    assert.equal(call('len', 'a😀b'), 3);
    assert.equal(call('len', '\ud800x'), 2, 'a lone surrogate is one character');
    assert.equal(call('len', 12345), 5);
    assert.equal(call('len', false), 5);
    assert.equal(call('len', null), null);
    assert.equal(make('len', ['time']).call([NOW]), '2024-05-06T07:08:09.123456Z'.length);
  });

  it('trim / ltrim / rtrim', () => {
    assert.equal(call('trim', '  a b \t\n'), 'a b');
    assert.equal(call('ltrim', '  a '), 'a ');
    assert.equal(call('rtrim', '  a '), '  a');
    assert.equal(call('trim', null), null);
    assert.equal(call('trim', 5), '5');
    assert.equal(call('trim', '\u00a0x\u2003'), 'x', 'Unicode spaces');
  });

  it('substr: 1-based start, negative from the end, optional length', () => {
    assert.equal(call('substr', 'abcdef', 2, 3), 'bcd');
    assert.equal(call('substr', 'abcdef', 1), 'abcdef');
    assert.equal(call('substr', 'abcdef', 0, 2), 'ab', '0 reads as 1');
    assert.equal(call('substr', 'abcdef', -2), 'ef');
    assert.equal(call('substr', 'abcdef', -2, 1), 'e');
    assert.equal(call('substr', 'abcdef', -10, 2), 'ab', 'clamped to the start');
    assert.equal(call('substr', 'abcdef', 5, 100), 'ef');
    assert.equal(call('substr', 'abcdef', 7), '');
    assert.equal(call('substr', 'abcdef', 2, 0), '');
    assert.equal(call('substr', 'abcdef', 2, -1), null);
    assert.equal(call('substr', 'abcdef', '2', '2.9'), 'bc', 'numeric strings, truncated');
    assert.equal(call('substr', 'abcdef', 'x'), null);
    assert.equal(call('substr', null, 1), null);
    assert.equal(call('substr', 'abc', null), null);
    assert.equal(call('substr', 'a😀bc', 2, 2), '😀b', 'code points');
    assert.equal(call('substr', 'a😀bc', -3), '😀bc');
    assert.equal(call('substr', 12345, 2, 2), '23');
  });

  it('split: 0-based index, negative from the end, out of range null', () => {
    assert.equal(call('split', 'a,b,c', ',', 0), 'a');
    assert.equal(call('split', 'a,b,c', ',', 2), 'c');
    assert.equal(call('split', 'a,b,c', ',', 3), null);
    assert.equal(call('split', 'a,b,c', ',', -1), 'c');
    assert.equal(call('split', 'a,b,c', ',', -3), 'a');
    assert.equal(call('split', 'a,b,c', ',', -4), null);
    assert.equal(call('split', 'a::b::', '::', 2), '');
    assert.equal(call('split', 'abc', ',', 0), 'abc');
    assert.equal(call('split', 'abc', '', 0), null, 'empty separator');
    assert.equal(call('split', 'a.b', '.', '1'), 'b');
    assert.equal(call('split', null, ',', 0), null);
    assert.equal(call('split', 'a,b', null, 0), null);
    assert.equal(call('split', 'a,b', ',', null), null);
    assert.equal(call('split', '10.0.0.1', '.', 3), '1');
    assert.equal(call('split', 1.25, '.', 1), '25');
  });

  it('contains / startswith / endswith: case-sensitive', () => {
    assert.equal(call('contains', 'Hello world', 'o w'), true);
    assert.equal(call('contains', 'Hello', 'hello'), false);
    assert.equal(call('contains', 'abc', ''), true);
    assert.equal(call('startswith', 'abc', 'ab'), true);
    assert.equal(call('startswith', 'abc', 'AB'), false);
    assert.equal(call('endswith', 'abc', 'bc'), true);
    assert.equal(call('endswith', 'abc', 'x'), false);
    assert.equal(call('contains', 12345, 234), true);
    assert.equal(call('contains', null, 'a'), null);
    assert.equal(call('startswith', 'a', null), null);
  });

  it('concat: texts joined, null gives null', () => {
    assert.equal(call('concat', 'a', 1, true, 'b'), 'a1trueb');
    assert.equal(call('concat', 'a'), 'a');
    assert.equal(call('concat', 'a', null), null);
    assert.equal(call('concat', '', ''), '');
    assert.equal(make('concat', ['string', 'time']).call(['t=', 0]), 't=1970-01-01T00:00:00.000Z');
  });

  it('url_decode: percent escapes as UTF-8, tolerant of bad ones', () => {
    assert.equal(call('url_decode', 'a%20b%2Fc'), 'a b/c');
    assert.equal(call('url_decode', '%E2%82%AC%f0%9f%98%80'), '€😀');
    assert.equal(call('url_decode', 'a+b'), 'a+b', '+ is kept');
    assert.equal(call('url_decode', 'no escapes'), 'no escapes');
    assert.equal(call('url_decode', '100%'), '100%', 'a % at the end');
    assert.equal(call('url_decode', '%zz%20'), '%zz%20', 'malformed: input unchanged');
    assert.equal(call('url_decode', '%E2%82'), '%E2%82', 'truncated UTF-8');
    assert.equal(call('url_decode', '%C0%80'), '%C0%80', 'overlong');
    assert.equal(call('url_decode', '%ED%A0%80'), '%ED%A0%80', 'surrogate');
    assert.equal(call('url_decode', 'é%20😀'), 'é 😀', 'non-ASCII text around escapes');
    assert.equal(call('url_decode', null), null);
    assert.equal(call('url_decode', 42), '42');
    // Agrees with decodeURIComponent wherever that succeeds.
    for (const s of ['%41%42', 'x%3Dy%26z', '%c3%a9t%C3%A9', '%F0%9F%8C%8D!']) assert.equal(urlDecode(s), decodeURIComponent(s));
  });
});
