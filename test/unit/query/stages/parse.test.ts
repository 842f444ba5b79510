import { strict as assert } from 'assert';
import { stageOf, assertError } from '../helpers';

describe('query stages: parse', () => {
  it('parse: every format, field, optional pattern', () => {
    for (const format of ['json', 'kv', 'logfmt', 'combined', 'clf', 'syslog']) {
      assert.deepEqual(stageOf(`parse ${format}(_raw)`), { kind: 'parse', format, field: { name: '_raw' }, pattern: null });
    }
    assert.deepEqual(stageOf('parse JSON(`body text`)'), { kind: 'parse', format: 'json', field: { name: 'body text' }, pattern: null });
    assert.deepEqual(stageOf('parse regex(msg, "took (?<ms>\\d+)ms")'), {
      kind: 'parse',
      format: 'regex',
      field: { name: 'msg' },
      pattern: { kind: 'string', value: 'took (?<ms>\\d+)ms' },
    });
    const pattern = '<ip> - <user> [<ts>] \\"<method> <path> <_>\\"';
    assert.deepEqual(stageOf(`parse pattern(_raw, "${pattern}")`), {
      kind: 'parse',
      format: 'pattern',
      field: { name: '_raw' },
      pattern: { kind: 'string', value: '<ip> - <user> [<ts>] "<method> <path> <_>"' },
    });
  });

  it('E013 unknown parse format', () => {
    const e = assertError('from main | parse jsn(_raw)', 'E013', 1, 19);
    assert.equal(e.suggestion, 'json');
    assert.match(assertError('from main | parse xml(_raw)', 'E013', 1, 19).message, /formats are json, kv, logfmt/);
  });
});
