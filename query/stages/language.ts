// The lexer and parser of the language with the stages of the registry, and the grammar's matches
// built into stage nodes by their modules.

import { unknownStage, type StageMatch, type UnknownStage } from '../syntax/builders';
import { createLexer, tokenize as tokenizeWith, type Token } from '../syntax/lexer';
import { countParses as countParsesWith, parseStages as parseMatches, type StageLexicon } from '../syntax/parser';
import type { SourceMap } from '../syntax/positions';
import { stageModule, stageModules, type ParsedStage } from './registry';

const LEXICON: StageLexicon = {
  lexer: createLexer(stageModules()),
  stageNames: stageModules().map((stage) => stage.name),
  expectedAfterName: new Map(
    stageModules().flatMap((stage) => (stage.expectedAfterName === undefined ? [] : [[`st_${stage.name}`, stage.expectedAfterName]])),
  ),
};

/** Parses the (substituted) text into stages, each built by its module; throws QueryError. */
export function parseStages(text: string, map: SourceMap): Array<ParsedStage | UnknownStage> {
  return parseMatches(text, map, LEXICON).map(buildStage);
}

function buildStage(match: StageMatch): ParsedStage | UnknownStage {
  const type = match.keyword.type;
  return type === 'st_unknown' ? unknownStage(match) : stageModule(type.slice('st_'.length)).build(match);
}

/** How many parses the grammar finds (exactly one for any valid query: the grammar is unambiguous). */
export function countParses(text: string, map: SourceMap): number {
  return countParsesWith(text, map, LEXICON);
}

/** All tokens of a query (for tests and editor highlighting); throws QueryError like the parser. */
export function tokenize(text: string): Token[] {
  return tokenizeWith(text, LEXICON.lexer);
}
