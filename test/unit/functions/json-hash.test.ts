import { strict as assert } from 'assert';
import { createHash } from 'crypto';
import { compilePath } from '../../../query/functions/json';
import { FunctionArgumentError } from '../../../query/functions/types';
import { call, make, NOW } from './helpers';

function jx(s: unknown, path: string): unknown {
  return make('json_extract', ['any', 'string'], [undefined, path]).call([s as never, path]);
}

const DOC =
  '{ "a": { "b": [10, {"c": "x\\ny", "d": null}, [1, 2 ]], "e": true },\n "n": -1.5e2, "big": 12345678901234567890, ' +
  '"s": "42", "k.dot": 1, "esc\\"aped": "q", "dup": 1, "dup": 2, "u": "\\u00e9\\ud83d\\ude00" }';

describe('functions: json_extract, md5, sha256', () => {
  it('json_extract: scalars as they are, objects and arrays as compact JSON text', () => {
    assert.equal(jx(DOC, '$.a.b[0]'), 10);
    assert.equal(jx(DOC, '$.a.b[1].c'), 'x\ny');
    assert.equal(jx(DOC, '$.a.b[1].d'), null);
    assert.equal(jx(DOC, '$.a.b[2]'), '[1,2]');
    assert.equal(jx(DOC, '$.a.b[-1]'), '[1,2]');
    assert.equal(jx(DOC, '$.a.b[-3]'), 10);
    assert.equal(jx(DOC, '$.a.b[-4]'), null);
    assert.equal(jx(DOC, '$.a.b[1]'), '{"c":"x\\ny","d":null}');
    assert.equal(jx(DOC, '$.a.e'), true);
    assert.equal(jx(DOC, '$.n'), -150);
    assert.equal(jx(DOC, '$.big'), '12345678901234567890', 'beyond 2^53: digits kept as text');
    assert.equal(jx(DOC, '$.s'), '42', 'a JSON string stays a string');
    assert.equal(jx(DOC, "$['k.dot']"), 1);
    assert.equal(jx(DOC, '$["esc\\"aped"]'), 'q');
    assert.equal(jx(DOC, '$.dup'), 1, 'first of duplicate names');
    assert.equal(jx(DOC, '$.u'), 'é😀');
    assert.equal(jx(DOC, '$.missing'), null);
    assert.equal(jx(DOC, '$.a.b[7]'), null);
    assert.equal(jx(DOC, '$.a.b.c'), null, 'a key on an array');
    assert.equal(jx(DOC, '$.a[0]'), null, 'an index on an object');
    assert.equal(jx('[1, [2, 3]]', '$[1][0]'), 2);
    assert.equal(jx(' "x" ', '$'), 'x');
    assert.equal(jx('{"a" : 1}', '$'), '{"a":1}');
    assert.equal(jx('{"a": "b c"}', '$'), '{"a":"b c"}', 'spaces inside strings are kept');
  });

  it('json_extract: invalid JSON and non-strings give null', () => {
    assert.equal(jx('{"a": 1', '$.b'), null);
    assert.equal(jx('{"a": tru}', '$.a'), null);
    assert.equal(jx('{"a": [1, 2}', '$.a'), null);
    assert.equal(jx('{"a": 01}', '$.a'), null);
    assert.equal(jx('{a: 1}', '$.a'), null);
    assert.equal(jx('', '$'), null);
    assert.equal(jx('not json', '$.a'), null);
    assert.equal(jx(null, '$.a'), null);
    assert.equal(jx(5, '$'), null);
    assert.equal(jx('{"a": 1, "b": oops}', '$.a'), 1, 'only the path is read');
    assert.equal(jx(`${'['.repeat(10000)}${']'.repeat(10000)}`, '$'), null, 'too deep');
  });

  it('json_extract paths', () => {
    assert.deepEqual(compilePath('$'), []);
    assert.deepEqual(compilePath('$.a["b.c"][2]'), [
      { key: 'a', index: -1 },
      { key: 'b.c', index: -1 },
      { key: null, index: 2 },
    ]);
    for (const bad of ['a.b', '$.', '$..a', '$[x]', '$["a"', '$a']) assert.equal(compilePath(bad), null, bad);
    assert.throws(
      () => make('json_extract', ['any', 'string'], [undefined, '$[x]']),
      (e: unknown) => e instanceof FunctionArgumentError && e.code === 'E005' && e.argument === 1,
    );
    const dynamic = make('json_extract', ['any', 'any']);
    assert.equal(dynamic.call(['{"a": 1}', '$.a']), 1);
    assert.equal(dynamic.call(['{"a": 1}', '$[x]']), null);
    assert.equal(dynamic.call(['{"a": 1}', null]), null);
  });

  it('md5 / sha256: hex of the UTF-8 text', () => {
    assert.equal(call('md5', ''), 'd41d8cd98f00b204e9800998ecf8427e');
    assert.equal(call('md5', 'abc'), '900150983cd24fb0d6963f7d28e17f72');
    assert.equal(call('sha256', 'abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(call('sha256', 'é'), createHash('sha256').update('é', 'utf8').digest('hex'));
    assert.equal(call('md5', 123), createHash('md5').update('123').digest('hex'));
    assert.equal(call('md5', null), null);
    assert.equal(make('md5', ['time']).call([NOW]), createHash('md5').update('2024-05-06T07:08:09.123456Z').digest('hex'));
  });
});
