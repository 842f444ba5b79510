/** What the UI reads from query text before sending it: its stages, and a `where` to add. */

/** Splits a pipeline at each top-level `|` (not inside quotes or backticks). */
export function splitStages(query: string): string[] {
  const stages: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < query.length; i++) {
    const char = query[i]!;
    if (quote !== null) {
      current += char;
      if (char === '\\' && quote !== '`') current += query[++i] ?? '';
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'" || char === '`') {
      quote = char;
      current += char;
    } else if (char === '|') {
      stages.push(current);
      current = '';
    } else current += char;
  }
  stages.push(current);
  return stages;
}

const FILTER_STAGES = new Set(['from', 'search', 'where', 'extend', 'parse', 'keep', 'drop', 'rename']);

function stageName(stage: string): string {
  return (
    stage
      .replace(/--[^\n]*/g, '')
      .trim()
      .split(/\s+/, 1)[0] ?? ''
  ).toLowerCase();
}

/**
 * The histogram's filter: the stages of the query up to the first that does more than keep or drop
 * events (`stats`, `head`, ...), since GET /histogram counts events of filter stages only.
 */
export function histogramFilter(query: string): string {
  const kept: string[] = [];
  for (const stage of splitStages(query)) {
    if (!FILTER_STAGES.has(stageName(stage))) break;
    kept.push(stage);
  }
  return kept.join('|').trim();
}

/** A field name as the language writes it: bare when it can be, else in backticks. */
export function fieldName(name: string): string {
  return /^[A-Za-z_@][A-Za-z0-9_.@:-]*$/.test(name) ? name : `\`${name.replace(/`/g, '')}\``;
}

/** A value as a literal: numbers and booleans bare, anything else a quoted string. */
export function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return JSON.stringify(String(value));
}

/** The query with `| where <field> = <value>` added at its end. */
export function withWhere(query: string, field: string, value: unknown): string {
  const condition = value === null ? `${fieldName(field)} is null` : `${fieldName(field)} = ${literal(value)}`;
  return `${query.trimEnd()}\n| where ${condition}`;
}
