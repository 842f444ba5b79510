/**
 * Highlighting of the query language (docs/language.md) for CodeMirror: a stream tokenizer of its
 * lexical forms (strings, numbers, durations, `--` comments, `$variables`, backtick names) and its
 * stage, operator and function keywords.
 */
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';

const STAGES = new Set([
  'from',
  'search',
  'where',
  'extend',
  'parse',
  'keep',
  'drop',
  'rename',
  'head',
  'tail',
  'dedup',
  'stats',
  'sort',
  'top',
]);
const WORDS = new Set(['and', 'or', 'not', 'in', 'like', 'has', 'is', 'as', 'by', 'asc', 'desc']);
const ATOMS = new Set(['true', 'false', 'null']);
const LEGACY = new Set(['eval', 'rex', 'table', 'fields', 'timechart', 'spath', 'chart', 'rare', 'limit']);

interface State {
  /** At the start of a stage: the next word is a stage name. */
  stageStart: boolean;
}

export const queryLanguage = StreamLanguage.define<State>({
  name: 'trawl',
  startState: () => ({ stageStart: true }),
  token(stream, state) {
    if (stream.eatSpace()) return null;
    if (stream.match('--')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.eat('|')) {
      state.stageStart = true;
      return 'separator';
    }
    const quote = stream.peek();
    if (quote === '"' || quote === "'") {
      stream.next();
      let escaped = false;
      for (let char = stream.next(); char !== undefined; char = stream.next()) {
        if (char === quote && !escaped) break;
        escaped = !escaped && char === '\\';
      }
      state.stageStart = false;
      return 'string';
    }
    if (stream.eat('`')) {
      if (stream.skipTo('`')) stream.next();
      else stream.skipToEnd();
      return 'variableName';
    }
    if (stream.match(/^\$[A-Za-z_][A-Za-z0-9_]*/)) return 'variableName.special';
    if (stream.match(/^\d+(ms|s|m|h|d|w)\b/)) return 'unit';
    if (stream.match(/^\d+(\.\d+)?([eE][-+]?\d+)?/)) return 'number';
    if (stream.match(/^[A-Za-z_@][A-Za-z0-9_.@:-]*/)) {
      const word = stream.current().toLowerCase();
      const atStart = state.stageStart;
      state.stageStart = false;
      if (atStart && STAGES.has(word)) return 'keyword';
      if (atStart && LEGACY.has(word)) return 'invalid';
      if (WORDS.has(word)) return 'operatorKeyword';
      if (ATOMS.has(word)) return 'atom';
      if (stream.peek() === '(') return 'variableName.function';
      return 'variableName';
    }
    if (stream.match(/^(==|!=|<=|>=|=~|!~|[=<>+\-*/%])/)) return 'operator';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '--' } },
});

const queryHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: 'var(--hl-keyword)', fontWeight: '600' },
  { tag: tags.operatorKeyword, color: 'var(--hl-keyword)' },
  { tag: tags.string, color: 'var(--hl-string)' },
  { tag: [tags.number, tags.unit, tags.atom], color: 'var(--hl-number)' },
  { tag: tags.comment, color: 'var(--hl-comment)', fontStyle: 'italic' },
  { tag: tags.special(tags.variableName), color: 'var(--hl-variable)' },
  { tag: tags.function(tags.variableName), color: 'var(--hl-function)' },
  { tag: tags.invalid, color: 'var(--hl-invalid)', textDecoration: 'underline wavy' },
  { tag: [tags.separator, tags.operator], color: 'var(--hl-operator)' },
]);

export const queryHighlighting = syntaxHighlighting(queryHighlight);
