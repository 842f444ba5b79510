/** This node's catalog part (catalog-parts.ts) from its storage: segment headers plus the write buffer. */
import { isUserIndexName } from '../storage/core/event';
import type { StorageEngine } from '../storage/engine';
import { catalogPartOf, type CatalogPart, type CatalogRequest } from './catalog-parts';
import { keySetOf } from './key-sets';

/** `keys`: only these partition keys (a cluster node's share), null for every key it holds. */
export function localCatalogPart(
  engine: Pick<StorageEngine, 'fields' | 'sources'>,
  keys: readonly string[] | null,
  request: CatalogRequest,
): CatalogPart {
  const filter = {
    // The internal indexes (the audit log) are in no catalog.
    index: isUserIndexName,
    fromMicros: request.fromMicros,
    toMicros: request.toMicros,
    source: request.source,
    keys: keys === null ? null : keySetOf(keys),
  };
  const fields = [...engine.fields(filter).values()].filter((field) => field.name.startsWith(request.prefix) || field.name === '_time');
  const sources = engine.sources({ ...filter, source: null }).values();
  return catalogPartOf(fields, request.source === null ? sources : [...sources].filter((source) => source.name === request.source));
}
