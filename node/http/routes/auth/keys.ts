/** What the key endpoints share: the key as answered, never its hash. */
import { prefixOf } from '../../../auth/key-issue';
import type { Authenticator } from '../../../auth/authenticator';
import { apiKeyListItem } from '../../../metadata/api-key';
import type { MetadataRecord } from '../../../metadata/store';

export { ID_PARAMS, JSON_BODY, NO_PARAMETERS } from '../metadata-records';

export function keyView(record: MetadataRecord, authenticator: Authenticator): Record<string, unknown> {
  return apiKeyListItem(record, prefixOf(record), authenticator.lastUsedAt(String(record.id)));
}
