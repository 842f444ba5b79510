/** What the key endpoints share: the key as answered (never its hash), and the root-key count. */
import { prefixOf } from '../../../auth/key-issue';
import type { App } from '../../../app/app';
import type { Authenticator } from '../../../auth/authenticator';
import { apiKeyListItem } from '../../../metadata/api-key';
import { API_KEYS } from '../../../metadata/collections';
import type { MetadataRecord } from '../../../metadata/store';

export { ID_PARAMS, JSON_BODY, NO_PARAMETERS } from '../metadata-records';

export function keyView(record: MetadataRecord, authenticator: Authenticator): Record<string, unknown> {
  return apiKeyListItem(record, prefixOf(record), authenticator.lastUsedAt(String(record.id)));
}

export function rootKeyIds(app: App): string[] {
  return app.metadata
    .list(API_KEYS.name)
    .filter((record) => record.scope === 'root')
    .map((record) => String(record.id));
}
