// Legacy stages (E003) and their native equivalents (docs/language.md, "Legacy stages"), plus
// better-than-edit-distance hints for stage names from other query languages (E002).

import type { UnknownStage } from './builders';
import type { Token } from './lexer';

export const LEGACY_STAGES = new Set(['eval', 'rex', 'table', 'fields', 'timechart', 'spath', 'chart', 'rare', 'limit', 'index']);

/** Stage names of other languages that are not legacy stages of ours: a direct hint for E002. */
export const STAGE_HINTS: Readonly<Record<string, string>> = {
  summarize: 'stats',
  project: 'keep',
  'project-away': 'drop',
  'project-rename': 'rename',
  take: 'head',
  order: 'sort',
  filter: 'where',
  distinct: 'stats by',
  count: 'stats count()',
  bin: 'stats ... by bin(_time, 5m)',
  bucket: 'stats ... by bin(_time, 5m)',
  uniq: 'dedup',
  reverse: 'sort _time asc',
  regex: 'where field =~ "regex"',
  kv: 'parse kv(_raw)',
  extract: 'parse kv(_raw)',
  json: 'parse json(_raw)',
  select: 'keep',
  mvexpand: 'parse json(_raw)',
};

const AGGREGATE_WORDS = /^(?:count|dc|sum|avg|min|max|values|first|last|earliest|latest|median|stdev|var|rate)$/i;

interface Body {
  tokens: Token[];
  /** Source text of the body, `from` and `to` being token indexes (to exclusive). */
  text(from?: number, to?: number): string;
}

function body(stage: UnknownStage, source: string): Body {
  const tokens = stage.tokens;
  return {
    tokens,
    text(from = 0, to = tokens.length) {
      if (from >= to) return '';
      const start = tokens[from]!.pos.offset;
      const last = tokens[to - 1]!;
      return source.slice(start, last.pos.offset + Math.max(last.text.length, 1)).trim();
    },
  };
}

/** `key=value` options at the start of the body (`span=5m`, `field=msg`): values by key. */
function options(b: Body): { values: Map<string, string>; end: number } {
  const values = new Map<string, string>();
  let i = 0;
  const t = b.tokens;
  while (i + 2 < t.length && t[i]!.type === 'ident' && t[i + 1]!.type === 'eq') {
    values.set(t[i]!.value.toLowerCase(), t[i + 2]!.text);
    i += 3;
  }
  return { values, end: i };
}

/** `count` (SPL) -> `count()`: bare aggregate names become calls. */
function aggregatesText(b: Body, from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to; i++) {
    const t = b.tokens[i]!;
    const isCall = b.tokens[i + 1]?.type === 'lparen';
    if (t.type === 'ident' && AGGREGATE_WORDS.test(t.value) && !isCall) {
      parts.push(b.text(from, i), `${t.value.toLowerCase()}()`);
      from = i + 1;
    }
  }
  parts.push(b.text(from, to));
  const out = parts
    .filter((p) => p !== '')
    .join(' ')
    .replace(/\s+,/g, ',');
  return out === '' ? 'count()' : out;
}

/** Word list `a b, c` -> `a, b, c`. */
function fieldList(text: string): string {
  return text
    .split(/[\s,]+/)
    .filter((x) => x !== '')
    .join(', ');
}

function indexOfType(b: Body, type: string, from = 0): number {
  for (let i = from; i < b.tokens.length; i++) if (b.tokens[i]!.type === type) return i;
  return -1;
}

/** The native text that replaces a legacy stage, for the E003 suggestion. */
export function legacySuggestion(stage: UnknownStage, source: string): string {
  const b = body(stage, source);
  const name = stage.name.toLowerCase();
  const n = b.tokens.length;
  switch (name) {
    case 'eval':
      return `extend ${b.text()}`.trim();
    case 'rex': {
      const opts = options(b);
      const re = b.tokens.find((t) => t.type === 'string');
      return `parse regex(${opts.values.get('field') ?? '_raw'}, ${re ? re.text : '"(?<name>...)"'})`;
    }
    case 'table':
      return `keep ${fieldList(b.text())}`.trim();
    case 'fields': {
      const sign = b.tokens[0]?.type;
      if (sign === 'minus') return `drop ${fieldList(b.text(1))}`.trim();
      return `keep ${fieldList(b.text(sign === 'plus' ? 1 : 0))}`.trim();
    }
    case 'timechart': {
      const opts = options(b);
      const by = indexOfType(b, 'kw_by', opts.end);
      const aggs = aggregatesText(b, opts.end, by < 0 ? n : by);
      const keys = by < 0 ? '' : `, ${fieldList(b.text(by + 1))}`;
      return `stats ${aggs} by bin(_time, ${opts.values.get('span') ?? '1h'})${keys}`;
    }
    case 'spath': {
      const opts = options(b);
      return `parse json(${opts.values.get('input') ?? '_raw'})`;
    }
    case 'chart': {
      const over = b.tokens.findIndex((t) => t.type === 'ident' && t.value.toLowerCase() === 'over');
      const by = indexOfType(b, 'kw_by');
      const aggEnd = [over, by, n].filter((x) => x >= 0).reduce((a, c) => Math.min(a, c));
      const keys: string[] = [];
      if (over >= 0) keys.push(b.text(over + 1, by > over ? by : n));
      if (by >= 0) keys.push(b.text(by + 1, over > by ? over : n));
      const byText = keys.length > 0 ? ` by ${fieldList(keys.join(', '))}` : '';
      return `stats ${aggregatesText(b, 0, aggEnd)}${byText}`;
    }
    case 'rare': {
      const by = indexOfType(b, 'kw_by');
      const fields = fieldList(b.text(0, by < 0 ? n : by));
      const keys = by < 0 ? fields : `${fieldList(b.text(by + 1))}, ${fields}`;
      return `stats count() by ${keys} | sort count asc | head 10`;
    }
    case 'limit':
      return `head ${b.text()}`.trim();
    case 'index': {
      // `index=main error` (the usual first line of a legacy query) -> `from main | search error`
      const value = b.tokens[0]?.type === 'eq' ? b.tokens.slice(1) : b.tokens;
      let end = 0;
      while (end < value.length && (end === 0 || value[end]!.pos.offset === value[end - 1]!.pos.offset + value[end - 1]!.text.length))
        end++;
      const index =
        value
          .slice(0, end)
          .map((t) => t.text)
          .join('') || '<index>';
      const rest = b.text(n - value.length + end);
      return rest === '' ? `from ${index}` : `from ${index} | search ${rest}`;
    }
    default:
      return '';
  }
}
