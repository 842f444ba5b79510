/**
 * What `GET /fields`, `GET /fields/{name}/values` and `GET /sources` share: the time range they
 * take (`from` defaults to the epoch, `to` to now) and the catalog over it, this node's alone or,
 * in a cluster, every key's once (coordinator/catalog-gather.ts) with `meta.partial` when some
 * key had no owner to answer.
 */
import { gatherCatalog } from '../../../../coordinator/catalog-gather';
import type { CatalogPart, CatalogRequest } from '../../../../coordinator/catalog-parts';
import { localCatalogPart } from '../../../../coordinator/local-catalog';
import type { App } from '../../../app/app';
import { validationError } from '../../../core/errors';
import { parseTimeBound } from '../../../core/time-bound';

export interface DiscoveryRange {
  fromMs: number;
  toMs: number;
}

/** `from` (default: the epoch, every stored event) and `to` (default: now), `from` before `to`. */
export function discoveryRange(params: { from?: string; to?: string }, nowMs: number): DiscoveryRange {
  const fromMs = params.from === undefined ? 0 : parseTimeBound('from', params.from, nowMs);
  const toMs = params.to === undefined ? nowMs : parseTimeBound('to', params.to, nowMs);
  if (fromMs >= toMs) throw validationError('from must be before to');
  return { fromMs, toMs };
}

export interface CatalogAnswer {
  part: CatalogPart;
  /** `partial`, `missing_keys`, `missing` when some key could not be read; else empty. */
  meta: Record<string, unknown>;
}

export async function catalogAnswer(app: App, range: DiscoveryRange, prefix: string, source: string | null): Promise<CatalogAnswer> {
  const request: CatalogRequest = { fromMicros: range.fromMs * 1000, toMicros: range.toMs * 1000, prefix, source };
  const distribution = app.queries.distribution;
  if (distribution === null) return { part: localCatalogPart(app.engine, null, request), meta: {} };
  const runtimeMs = app.settings.query.maxQueryRuntimeMs;
  const signal = AbortSignal.timeout(runtimeMs);
  const gathered = await gatherCatalog(distribution, request, signal, Date.now() + runtimeMs);
  const meta = gathered.missing === 0 ? {} : { partial: true, missing_keys: gathered.missing, missing: gathered.missingDetail };
  return { part: gathered.part, meta };
}
