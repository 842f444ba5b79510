// The `parse` stage formats of docs/language.md (semantics in README.md).

import { FunctionArgumentError } from '../functions/types';
import type { ParseFormat } from '../syntax/ast';
import { clfExtractor, combinedExtractor } from './access';
import { jsonExtractor } from './json';
import { kvExtractor, logfmtExtractor } from './kv';
import { patternExtractor } from './pattern';
import { regexExtractor } from './regex';
import { syslogExtractor } from './syslog';
import type { Extractor, ExtractorFactory } from './types';

/**
 * The extractor of a format. `regex` and `pattern` need their pattern (else E005); an invalid one is
 * E008 (FunctionArgumentError with argument 1, the pattern). Other formats ignore the pattern.
 */
export const createExtractor: ExtractorFactory = (format: ParseFormat, pattern: string | null): Extractor => {
  switch (format) {
    case 'json':
      return jsonExtractor();
    case 'kv':
      return kvExtractor();
    case 'logfmt':
      return logfmtExtractor();
    case 'combined':
      return combinedExtractor();
    case 'clf':
      return clfExtractor();
    case 'syslog':
      return syslogExtractor();
    case 'regex':
    case 'pattern':
      if (pattern === null) throw new FunctionArgumentError(`parse ${format}() needs a pattern`, 'E005', 1);
      return format === 'regex' ? regexExtractor(pattern) : patternExtractor(pattern);
    default: {
      const unknown: never = format;
      throw new FunctionArgumentError(`unknown parse format ${String(unknown)}`, 'E005', 0);
    }
  }
};

export type { Extractor, ExtractorFactory } from './types';
export { captureValue } from './common';
