// `search error "connection reset" host=web-*`: full-text search over `_raw` and field matches.
// Pushed into the scan as bloom tokens and raw literals while `_raw` is the stored one.

import { compileSearch, requiredRawLiterals, requiredTokens } from '../exec/compile-search';
import type { BatchOp } from '../plan/operators';
import { resolveField } from '../plan/schema';
import type { Pos, SearchExpr } from '../syntax/ast';
import { stagePos } from '../syntax/builders';
import { searchToString } from '../syntax/print';
import { checkSearch } from '../syntax/validate-search';
import type { StageModule } from './stage';

export interface SearchStage {
  kind: 'search';
  expr: SearchExpr;
  pos: Pos;
}

export const search: StageModule<SearchStage, SearchStage> = {
  name: 'search',
  argumentLexing: 'search',
  streaming: true,
  build: (match) => ({ kind: 'search', expr: match.data[1] as SearchExpr, pos: stagePos(match) }),
  validate(s, context) {
    s.expr = checkSearch(s.expr, context.errors);
    return s;
  },
  print: (s) => `search ${searchToString(s.expr)}`,
  pushDown(s, { scan, schema }) {
    if (schema.defined.has('_raw')) return null;
    const tokens = requiredTokens(s.expr, resolveField);
    scan.tokens.push(...tokens.filter((token) => !scan.tokens.includes(token)));
    scan.rawLiterals.push(...requiredRawLiterals(s.expr).filter((literal) => !scan.rawLiterals.includes(literal)));
    scan.filters.push(search.print(s));
    return tokens.length > 0 ? `search pushed into scan (bloom tokens ${JSON.stringify(tokens)})` : 'search pushed into scan';
  },
  atShard: (s) => ({ kind: 'stream', op: searchFilter(s) }),
  atCoordinator: (s) => ({ kind: 'batch', op: searchFilter(s) }),
};

function searchFilter(s: SearchStage): BatchOp {
  return { kind: 'filter', predicate: compileSearch(s.expr, resolveField) };
}
