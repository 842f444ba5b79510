/**
 * Live tail queries (docs/api.md "Live tail"): what `q` means (as the histogram reads it: a whole
 * pipeline, stages over every index, or a bare expression), which stages a tail may use, and the
 * plan its live events run through.
 */
import { STREAMING_STAGES, planQuery, type Query } from '../query/stages';
import type { QueryPlan } from '../query/plan/plan';

export { errorInFilter as errorInTailQuery, histogramFilter as tailQueryText } from './histogram';

/** The stages of a tail's query after `from`, as messages list them. */
export function tailStageNames(): string[] {
  return [...STREAMING_STAGES].filter((kind) => kind !== 'from');
}

/** The first stage a tail cannot run (one that needs all its input: `stats`, `sort`, ...), or null. */
export function unsupportedTailStage(query: Query): string | null {
  return query.stages.find((stage) => !STREAMING_STAGES.has(stage.kind))?.kind ?? null;
}

/** The message of a 422 for such a stage. */
export function unsupportedTailStageMessage(stage: string): string {
  return `live tail runs streaming stages only (${tailStageNames().join(', ')}): ${stage} needs all of its input, so it cannot run over a live stream; run it as a query instead`;
}

/** The plan live events run through: every time, `now()` fixed when the session starts. */
export function liveTailPlan(query: Query, nowMicros: number): QueryPlan {
  return planQuery(query, { fromMicros: 0, toMicros: Number.MAX_SAFE_INTEGER, nowMicros });
}
