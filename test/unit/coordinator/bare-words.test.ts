import { strict as assert } from 'assert';
import { bareWordsOf } from '../../../coordinator/bare-words';
import { parseQuery } from '../../../query/stages';

function words(text: string): string[] {
  return bareWordsOf(parseQuery(text), text).map((word) => `${word.comparedWith} ${word.op} ${word.field}`);
}

describe('coordinator: bare words', () => {
  it('finds a bare field on the value side of =, != and in', () => {
    assert.deepEqual(words('from main | where level = error or not (host != web and x in (a, 1, "b"))'), [
      'level = error',
      'host != web',
      'x in a',
    ]);
  });

  it('leaves out quoted strings, backtick names, and fields made by extend or rename', () => {
    assert.deepEqual(words('from main | where level = "error" and level = `error`'), []);
    assert.deepEqual(words('from main | extend e = 1 | rename a as b | where x = e and y = b and z = c'), ['z = c']);
  });

  it('stops at a stage whose output fields depend on the data', () => {
    assert.deepEqual(words('from main | where a = b | parse json(_raw) | where c = d'), ['a = b']);
    assert.deepEqual(words('from main | stats count() by host | where host = web'), []);
  });

  it('ignores comparisons other than equality', () => {
    assert.deepEqual(words('from main | where a > b and a like b and a = 1'), []);
  });
});
