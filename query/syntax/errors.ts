// Query errors with the stable codes of docs/language.md ("Errors").

export type QueryErrorCode =
  | 'E001' // unexpected token
  | 'E002' // unknown stage
  | 'E003' // legacy stage
  | 'E004' // unknown function
  | 'E005' // wrong number or type of arguments
  | 'E006' // query does not start with `from`
  | 'E007' // unterminated string or backtick
  | 'E008' // invalid regular expression or pattern
  | 'E009' // invalid duration
  | 'E010' // aggregate outside stats, or scalar where an aggregate is needed
  | 'E011' // `from` after the first stage
  | 'E012' // invalid number (head/tail/top count, percentile)
  | 'E013' // unknown parse format
  | 'E014' // unknown $variable
  | 'E015'; // an internal index in `from`

export interface ErrorPos {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

export interface QueryErrorJSON {
  code: QueryErrorCode;
  message: string;
  line: number;
  column: number;
  suggestion: string;
}

export class QueryError extends Error {
  override readonly name = 'QueryError';
  readonly code: QueryErrorCode;
  /** 1-based, in the query text as the user wrote it (before variable substitution). */
  readonly line: number;
  readonly column: number;
  /** 0-based offset in the same text; orders errors and lets editors highlight. */
  readonly offset: number;
  /**
   * Never empty: replacement text for the part at line/column (the nearest name, the native form)
   * when there is one, else how to complete or fix the text ("add a value after `>`").
   */
  readonly suggestion: string;

  constructor(code: QueryErrorCode, message: string, pos: ErrorPos, suggestion: string) {
    super(message);
    this.code = code;
    this.line = pos.line;
    this.column = pos.column;
    this.offset = pos.offset;
    this.suggestion = suggestion;
  }

  toJSON(): QueryErrorJSON {
    return { code: this.code, message: this.message, line: this.line, column: this.column, suggestion: this.suggestion };
  }
}

export function isQueryError(e: unknown): e is QueryError {
  return e instanceof QueryError;
}

/** Quotes a piece of query text for a message, shortening long pieces. */
export function show(text: string): string {
  const t = text.length > 30 ? text.slice(0, 27) + '...' : text;
  return JSON.stringify(t);
}
