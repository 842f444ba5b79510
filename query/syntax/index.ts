// The core of the native query language: tokens, expressions, errors, variables and the canonical
// text of expressions. The stages and the front end that reads them (parseQuery, checkQuery) are in
// query/stages.

export * from './ast';
export { QueryError, isQueryError, type QueryErrorCode, type QueryErrorJSON } from './errors';
export { substituteVariables, variableNames } from './variables';
export { exprToString, defaultAggregateName, defaultKeyName, aggregateColumnNames, assignColumnNames } from './names';
export { searchToString } from './print';
export { SCALAR_FUNCTIONS, AGGREGATE_FUNCTIONS, isAggregateFunction, isScalarFunction } from './functions';
