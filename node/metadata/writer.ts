/**
 * Where the routes send metadata writes. One node applies them to its own store; in a cluster a
 * writer forwards them to the master, the one node that applies them.
 */
import type { MetadataApplied, MetadataStore, MetadataWrite } from './store';

export interface MetadataWriter {
  write(write: MetadataWrite): Promise<MetadataApplied>;
}

/** One node alone: the node's own store is the authority. */
export class LocalMetadataWriter implements MetadataWriter {
  constructor(private readonly store: MetadataStore) {}

  write(write: MetadataWrite): Promise<MetadataApplied> {
    return this.store.apply(write);
  }
}
