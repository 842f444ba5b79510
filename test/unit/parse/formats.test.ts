import { strict as assert } from 'assert';
import { FunctionArgumentError } from '../../../query/functions/types';
import { captureValue, createExtractor } from '../../../query/parse/index';
import { fixtureLines } from './helpers';

const x = (format: Parameters<typeof createExtractor>[0], text: string, pattern: string | null = null): unknown =>
  createExtractor(format, pattern).extract(text);

describe('parse: numeric captures', () => {
  it('plain decimals become numbers, everything else stays text', () => {
    const numbers: Array<[string, number]> = [
      ['42', 42],
      ['-7', -7],
      ['0', 0],
      ['-0', 0],
      ['3.25', 3.25],
      ['0.5', 0.5],
      ['-0.001', -0.001],
      ['9007199254740991', 9007199254740991],
      ['123456789.123456', 123456789.123456],
    ];
    for (const [s, n] of numbers) assert.ok(Object.is(captureValue(s), n), s);
    for (const s of [
      '',
      '007',
      '00',
      '1e5',
      '0x10',
      '+5',
      '.5',
      '5.',
      '1,000',
      '10.0.0.1',
      '1.2.3',
      '9007199254740993',
      '12345678901234567890',
      '0.1234567890123456',
      ' 1',
      '1 ',
      '-',
      'NaN',
      'Infinity',
      '١٢',
      '12a',
    ]) {
      assert.equal(captureValue(s), s, s);
    }
  });
});

describe('parse: json', () => {
  it('flattens objects, keeps arrays as JSON text, drops nulls', () => {
    const text =
      '{"a": {"b": 1, "c": [1, {"d": 2}], "e": {}}, "s": "42", "t": true, "n": null, "big": -12345678901234567890, ' +
      '"": 5, "esc\\u00e9": "x\\"y", "dup": 1, "dup": 2, "f": 1.5e3}';
    assert.deepEqual(x('json', text), {
      'a.b': 1,
      'a.c': '[1,{"d":2}]',
      s: '42',
      t: true,
      big: '-12345678901234567890',
      escé: 'x"y',
      dup: 2,
      f: 1500,
    });
    assert.deepEqual(Object.keys(createExtractor('json', null)), ['fields', 'extract']);
    assert.equal(createExtractor('json', null).fields, null);
  });

  it('deep objects become JSON text below depth 16; __proto__ is an own field', () => {
    let deep = '1';
    for (let i = 20; i >= 1; i--) deep = `{"k${i}": ${deep}}`;
    const out = x('json', deep) as Record<string, unknown>;
    const name = Array.from({ length: 16 }, (_, i) => `k${i + 1}`).join('.');
    assert.deepEqual(out, { [name]: '{"k17":{"k18":{"k19":{"k20":1}}}}' });
    const proto = x('json', '{"__proto__": {"polluted": 1}, "x": 1}') as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(proto).sort(), ['__proto__.polluted', 'x']);
  });

  it('anything but one JSON object gives no fields', () => {
    for (const t of [
      '',
      '[1, 2]',
      '"x"',
      '42',
      '{"a": 1',
      '{"a": 1} x',
      '{"a": 1}{"b": 2}',
      '{a: 1}',
      '{"a": 01}',
      "{'a': 1}",
      'plain text',
      '{"a": "\u0001"}',
    ]) {
      assert.deepEqual(x('json', t), {}, t);
    }
    assert.deepEqual(x('json', '  {"a": 1}\n'), { a: 1 });
  });
});

describe('parse: kv and logfmt', () => {
  it('kv on OpenSSH lines', () => {
    const line = fixtureLines('OpenSSH_2k.log').find((l) => l.includes('rhost=') && l.includes(' user='))!;
    const out = x('kv', line) as Record<string, unknown>;
    assert.equal(out.uid, 0);
    assert.equal(out.euid, 0);
    assert.equal(out.tty, 'ssh');
    assert.equal(out.logname, '');
    assert.equal(typeof out.rhost, 'string');
    assert.equal(
      out.user,
      line
        .slice(line.indexOf(' user=') + 6)
        .trim()
        .split(' ')[0],
    );
  });

  it('kv: quotes, separators, non-pairs', () => {
    assert.deepEqual(x('kv', `a=1 b="x y" c='z', d=007;e=1.5 word f="q\\"d" g= h="42"`), {
      a: 1,
      b: 'x y',
      c: 'z',
      d: '007',
      e: 1.5,
      f: 'q"d',
      g: '',
      h: '42',
    });
    assert.deepEqual(x('kv', 'no pairs here'), {});
    assert.deepEqual(x('kv', '=1 a=1 a=2'), { a: 2 }, 'empty key skipped, last wins');
    assert.deepEqual(x('kv', 'a="unclosed b=2'), { a: 'unclosed b=2' });
    assert.deepEqual(x('kv', '"quoted word" k=v'), { k: 'v' });
    assert.deepEqual(x('kv', 'url=http://x/?a=b&c=d'), { url: 'http://x/?a=b&c=d' });
  });

  it('logfmt: quoted values with escapes, bare keys are true', () => {
    assert.deepEqual(x('logfmt', 'level=info msg="hello \\"world\\"\\n" dur=1.5ms n=12 flag at= path=/a=b'), {
      level: 'info',
      msg: 'hello "world"\n',
      dur: '1.5ms',
      n: 12,
      flag: true,
      at: '',
      path: '/a=b',
    });
    assert.deepEqual(x('logfmt', 'a="x \\u00e9" b="42"'), { a: 'x é', b: '42' });
    assert.deepEqual(x('logfmt', ''), {});
    assert.deepEqual(x('logfmt', 'k="unclosed'), { k: 'unclosed' });
    assert.deepEqual(x('logfmt', 'a"b"=1 c=2'), { c: 2 });
    assert.deepEqual(x('logfmt', 'a,b=1'), { 'a,b': 1 }, 'commas are key characters in logfmt');
  });
});

describe('parse: regex and pattern', () => {
  const apache = fixtureLines('Apache_2k.log');

  it('regex: named groups on Apache error log lines', () => {
    const e = createExtractor('regex', '^\\[(?<ts>[^\\]]+)\\] \\[(?P<level>\\w+)\\] (?<msg>.*?)(?: state (?<state>\\d+))?$');
    assert.deepEqual(e.fields, ['ts', 'level', 'msg', 'state']);
    assert.deepEqual(e.extract(apache[1]!), {
      ts: 'Sun Dec 04 04:51:18 2005',
      level: 'error',
      msg: 'mod_jk child workerEnv in error',
      state: 6,
    });
    assert.deepEqual(e.extract(apache[0]!), {
      ts: 'Sun Dec 04 04:47:44 2005',
      level: 'notice',
      msg: 'workerEnv.init() ok /etc/httpd/conf/workers2.properties',
    });
    assert.deepEqual(e.extract('no match'), {});
    let levels = 0;
    for (const l of apache) if ((e.extract(l) as { level?: string }).level !== undefined) levels++;
    assert.equal(levels, apache.length);
  });

  it('regex: bad patterns are E008', () => {
    for (const p of ['(?<a>x', '(?<a>x)\\1', '(?<a>x)(?=y)', 'no groups', '(unnamed)']) {
      assert.throws(
        () => createExtractor('regex', p),
        (e: unknown) => e instanceof FunctionArgumentError && e.code === 'E008',
        p,
      );
    }
    assert.throws(
      () => createExtractor('regex', null),
      (e: unknown) => e instanceof FunctionArgumentError && e.code === 'E005',
    );
  });

  it('regex: a catastrophic pattern runs in linear time', () => {
    const e = createExtractor('regex', '^(?<a>(a+)+)$');
    const start = Date.now();
    assert.deepEqual(e.extract(`${'a'.repeat(100_000)}!`), {});
    assert.deepEqual(e.extract('aaaa'), { a: 'aaaa' });
    assert.ok(Date.now() - start < 1000);
  });

  it('pattern: captures up to the next literal, <_> skips, the last capture takes the rest', () => {
    const e = createExtractor('pattern', '[<ts>] [<level>] <msg>');
    assert.deepEqual(e.fields, ['ts', 'level', 'msg']);
    assert.deepEqual(e.extract(apache[1]!), {
      ts: 'Sun Dec 04 04:51:18 2005',
      level: 'error',
      msg: 'mod_jk child workerEnv in error state 6',
    });
    for (const l of apache) assert.ok((e.extract(l) as { level?: string }).level !== undefined, l);
    const access = createExtractor('pattern', '<ip> - <user> [<ts>] "<method> <path> <_>" <status> <size>');
    assert.deepEqual(access.extract('10.1.2.3 - bob [10/Oct/2000:13:55:36 -0700] "GET /a b HTTP/1.1" 200 2326 "-"'), {
      ip: '10.1.2.3',
      user: 'bob',
      ts: '10/Oct/2000:13:55:36 -0700',
      method: 'GET',
      path: '/a',
      status: 200,
      size: '2326 "-"',
    });
    assert.deepEqual(createExtractor('pattern', '<a>,<b>;').extract('1,2;rest'), { a: 1, b: 2 }, 'text after the last literal is ignored');
    assert.deepEqual(createExtractor('pattern', '<a>,<b>;').extract('1,2'), {}, 'all or nothing');
    assert.deepEqual(createExtractor('pattern', 'id=<id> ').extract('id= x'), { id: '' });
    assert.deepEqual(createExtractor('pattern', 'id=<id>').extract('ID=1'), {}, 'the leading literal must match');
    assert.deepEqual(createExtractor('pattern', 'a < b <x>').extract('a < b 5'), { x: 5 }, 'a lone < is literal');
  });

  it('pattern: malformed patterns are E008', () => {
    for (const p of ['<a', 'x <ip', '<a><b>', 'no captures', '<_> only', '<a> <a>']) {
      assert.throws(
        () => createExtractor('pattern', p),
        (e: unknown) => e instanceof FunctionArgumentError && e.code === 'E008',
        p,
      );
    }
  });
});
