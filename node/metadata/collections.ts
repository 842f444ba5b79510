/**
 * The metadata collections: what each is called, how its ids start and how a record is checked.
 */
import { alertRecord } from '../alerts/alert-record';
import { validateChannels } from '../alerts/index';
import { apiKeyRecord, lastRootKeyStays } from './api-key';
import { dashboardRecord } from './dashboard';
import { savedQueryRecord } from './saved-query';

export interface MetadataCollection {
  /** The store's name for it; lowercase letters and `_` (it is part of a record's key). */
  readonly name: string;
  /** Every id starts with this; the rest is random and URL-safe. */
  readonly idPrefix: string;
  /** One record in messages: "no saved query with id ...". */
  readonly noun: string;
  /**
   * The record to keep from a client's fields: only the collection's own fields (the store adds
   * `id`, `created_at` and `updated_at`). Throws an ApiError or QueryError saying what is wrong.
   */
  validate(fields: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /**
   * Refuses a delete the rest of the collection forbids (throws an ApiError saying why). It runs
   * where writes are applied, one at a time, so two deletes through different nodes cannot both pass.
   */
  checkDelete?(record: Readonly<Record<string, unknown>>, others: readonly Readonly<Record<string, unknown>>[]): void;
}

export const SAVED_QUERIES: MetadataCollection = {
  name: 'saved_queries',
  idPrefix: 'sq_',
  noun: 'saved query',
  validate: savedQueryRecord,
};

export const DASHBOARDS: MetadataCollection = {
  name: 'dashboards',
  idPrefix: 'dsh_',
  noun: 'dashboard',
  validate: (fields) => dashboardRecord(fields),
};

export const ALERTS: MetadataCollection = {
  name: 'alerts',
  idPrefix: 'alt_',
  noun: 'alert',
  validate: (fields) => alertRecord(fields, validateChannels),
};

export const API_KEYS: MetadataCollection = {
  name: 'api_keys',
  idPrefix: 'key_',
  noun: 'API key',
  validate: apiKeyRecord,
  checkDelete: lastRootKeyStays,
};

const COLLECTIONS: ReadonlyMap<string, MetadataCollection> = new Map(
  [SAVED_QUERIES, DASHBOARDS, ALERTS, API_KEYS].map((collection) => [collection.name, collection]),
);

/** Whether a collection of that name exists (a name from outside is checked before it is used). */
export function isMetadataCollection(name: string): boolean {
  return COLLECTIONS.has(name);
}

/** The collection of that name; an unknown name is a programming error. */
export function metadataCollection(name: string): MetadataCollection {
  const collection = COLLECTIONS.get(name);
  if (collection === undefined) throw new Error(`no metadata collection "${name}"`);
  return collection;
}
