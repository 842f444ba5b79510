import { strict as assert } from 'assert';
import { tokenize } from '../../../query/stages/language';
import { QueryError } from '../../../query/stages';

const types = (text: string): string[] => tokenize(text).map((t) => t.type);
const pairs = (text: string): Array<[string, string]> => tokenize(text).map((t) => [t.type, t.value]);

describe('query syntax: lexer', () => {
  it('stage names at stage position, case-insensitive; unknown words are generic stage names', () => {
    assert.deepEqual(types('FROM a | Where x | sTaTs count() | frob'), [
      'st_from',
      'pattern',
      'pipe',
      'st_where',
      'ident',
      'pipe',
      'st_stats',
      'ident',
      'lparen',
      'rparen',
      'pipe',
      'st_unknown',
    ]);
  });

  it('keywords are case-insensitive; other words are field names', () => {
    assert.deepEqual(types('where a AND b or Not c in like has IS null TRUE false as by ASC desc'), [
      'st_where',
      'ident',
      'kw_and',
      'ident',
      'kw_or',
      'kw_not',
      'ident',
      'kw_in',
      'kw_like',
      'kw_has',
      'kw_is',
      'kw_null',
      'kw_true',
      'kw_false',
      'kw_as',
      'kw_by',
      'kw_asc',
      'kw_desc',
    ]);
    assert.deepEqual(pairs('where Host'), [
      ['st_where', 'where'],
      ['ident', 'Host'],
    ]);
  });

  it('field names: the name character set, backticks', () => {
    assert.deepEqual(pairs('where resource.service.name @ts k8s:pod _x1 `user agent`'), [
      ['st_where', 'where'],
      ['ident', 'resource.service.name'],
      ['ident', '@ts'],
      ['ident', 'k8s:pod'],
      ['ident', '_x1'],
      ['qident', 'user agent'],
    ]);
  });

  it('"-" belongs to a bare name only when no space surrounds it', () => {
    assert.deepEqual(pairs('where status-code'), [
      ['st_where', 'where'],
      ['ident', 'status-code'],
    ]);
    assert.deepEqual(types('where a - b'), ['st_where', 'ident', 'minus', 'ident']);
    assert.deepEqual(types('where a -b'), ['st_where', 'ident', 'minus', 'ident']);
    assert.deepEqual(types('where a- b'), ['st_where', 'ident', 'minus', 'ident']);
    assert.deepEqual(types('where a--b'), ['st_where', 'ident'], '"--" starts a comment');
  });

  it('strings with escapes', () => {
    assert.deepEqual(pairs(`where "a\\"b" 'c\\'d' "\\\\ \\n \\t \\r \\u0041"`), [
      ['st_where', 'where'],
      ['string', 'a"b'],
      ['string', "c'd"],
      ['string', '\\ \n \t \r A'],
    ]);
  });

  it('numbers and durations; unary minus is an operator', () => {
    const toks = tokenize('where 42 3.5 1e6 -7 500ms 5s 5m 1h 1d 1w');
    assert.deepEqual(
      toks.map((t) => [t.type, t.num]),
      [
        ['st_where', 0],
        ['number', 42],
        ['number', 3.5],
        ['number', 1e6],
        ['minus', 0],
        ['number', 7],
        ['duration', 500e3],
        ['duration', 5e6],
        ['duration', 300e6],
        ['duration', 3600e6],
        ['duration', 86400e6],
        ['duration', 604800e6],
      ],
    );
  });

  it('operators', () => {
    assert.deepEqual(types('where = == != < <= > >= =~ !~ + - * / % ( ) , |'), [
      'st_where',
      'eq',
      'eqeq',
      'neq',
      'lt',
      'lte',
      'gt',
      'gte',
      'match',
      'nmatch',
      'plus',
      'minus',
      'star',
      'slash',
      'percent',
      'lparen',
      'rparen',
      'comma',
      'pipe',
    ]);
  });

  it('globs in from/keep/drop, terms in search', () => {
    assert.deepEqual(pairs('from web-*, a?c | keep http.*'), [
      ['st_from', 'from'],
      ['pattern', 'web-*'],
      ['comma', ','],
      ['pattern', 'a?c'],
      ['pipe', '|'],
      ['st_keep', 'keep'],
      ['pattern', 'http.*'],
    ]);
    assert.deepEqual(pairs('search err* AND "a b" host!=x (y)'), [
      ['st_search', 'search'],
      ['term', 'err*'],
      ['kw_and', 'AND'],
      ['string', 'a b'],
      ['term', 'host'],
      ['neq', '!='],
      ['term', 'x'],
      ['lparen', '('],
      ['term', 'y'],
      ['rparen', ')'],
    ]);
  });

  it('comments and positions (1-based line and column, 0-based offset)', () => {
    const toks = tokenize('from a -- c1\n  | where -- c2\n x');
    assert.deepEqual(
      toks.map((t) => [t.value, t.pos.line, t.pos.column, t.pos.offset]),
      [
        ['from', 1, 1, 0],
        ['a', 1, 6, 5],
        ['|', 2, 3, 15],
        ['where', 2, 5, 17],
        ['x', 3, 2, 30],
      ],
    );
  });

  it('lexical errors are QueryErrors', () => {
    assert.throws(
      () => tokenize('where "abc'),
      (e: unknown) => e instanceof QueryError && e.code === 'E007',
    );
    assert.throws(
      () => tokenize('where 5min'),
      (e: unknown) => e instanceof QueryError && e.code === 'E009',
    );
    assert.throws(
      () => tokenize('where #'),
      (e: unknown) => e instanceof QueryError && e.code === 'E001',
    );
    assert.throws(
      () => tokenize('where $x'),
      (e: unknown) => e instanceof QueryError && e.code === 'E014',
    );
  });
});
