/**
 * `GET /fields` and `GET /sources` over a cluster: the keys in range as a query finds them
 * (distribution.ts), each asked of one usable owner (key-assignment.ts: replicas hold the same
 * rows, so each key counts once), every node answering with the catalog part of its keys
 * (ShardQuery.Catalog; this node reads its own), merged here. A node that fails has its keys
 * asked of their other owners; a key no owner answers for is missing, and the answer says it is
 * partial (a node of a release without the Catalog call has none: it counts as failed).
 */
import { checkAlive } from '../query/exec/limits';
import { mergeCatalogParts, type CatalogPart, type CatalogRequest } from './catalog-parts';
import type { Distribution } from './distribution';
import { assignView, reassignKeys } from './key-assignment';
import { describeMissing, type MissingDetail } from './missing-ranges';

export interface GatheredCatalog {
  part: CatalogPart;
  missing: number;
  missingDetail: MissingDetail | null;
}

export async function gatherCatalog(
  distribution: Distribution,
  request: CatalogRequest,
  signal: AbortSignal,
  deadlineMs: number,
): Promise<GatheredCatalog> {
  const { fromMicros, toMicros } = request;
  const { view, keys, bucketSpanMicros } = await distribution.prepare({ indexPatterns: ['*'], fromMicros, toMicros, deadlineMs }, signal);
  checkAlive(signal);
  const owners = (key: string): readonly string[] => view.owners(key);
  const failed = new Set<string>();
  const usable = (node: string, key: string): boolean => !failed.has(node) && view.usable(node, key);
  const parts: CatalogPart[] = [];
  const missingKeys: string[] = [];
  const run = async (node: string, nodeKeys: string[]): Promise<void> => {
    try {
      const target = view.target(node);
      if (target.catalog === undefined) throw new Error(`node ${node} answers no catalog`);
      parts.push(await target.catalog(nodeKeys, request, signal));
    } catch (error) {
      if (signal.aborted) throw error;
      failed.add(node);
      const again = reassignKeys(node, nodeKeys, owners, usable, view.group);
      for (const key of again.missing) missingKeys.push(key);
      await Promise.all([...again.byNode].map(([next, list]) => run(next, list)));
    }
  };
  const first = assignView(view, keys);
  // One by one: a long range may miss more keys than a call can spread.
  for (const key of first.missing) missingKeys.push(key);
  await Promise.all([...first.byNode].map(([node, list]) => run(node, list)));
  return {
    part: mergeCatalogParts(parts),
    missing: missingKeys.length,
    missingDetail: missingKeys.length === 0 ? null : describeMissing(missingKeys, owners, bucketSpanMicros, fromMicros, toMicros),
  };
}
