/**
 * The contract of `parse` stage formats: one extractor per stage, built once from the format and
 * its pattern, then applied to each row's text. Numeric-looking captures become numbers.
 */
import type { ParseFormat } from '../syntax/ast';
import type { Value } from '../value';

export interface Extractor {
  /** Field names the format can produce when known in advance (regex groups, pattern names, fixed sets), else null (json, kv, logfmt). */
  fields: readonly string[] | null;
  /** Extracted fields of one text (empty when nothing matches). */
  extract(text: string): Record<string, Value>;
}

export type ExtractorFactory = (format: ParseFormat, pattern: string | null) => Extractor;
