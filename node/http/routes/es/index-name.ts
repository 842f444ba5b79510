/** Elasticsearch's rules for index names, with its error for a name that breaks them. */
import { ApiError } from '../../../core/errors';

/**
 * Why `name` is not a valid Elasticsearch index name, or null. Date-math names (`<logs-{now/d}>`),
 * which Logstash uses for its first rollover index, are accepted whole.
 */
export function invalidIndexName(name: string): string | null {
  if (name.startsWith('<') && name.endsWith('>') && name.length > 2) return null;
  if (name === '' || name === '.' || name === '..') return 'must not be empty, "." or ".."';
  if (name !== name.toLowerCase()) return 'must be lowercase';
  if (/^[-_+]/.test(name)) return "must not start with '_', '-', or '+'";
  if (/[\\/*?"<>| ,#:]/.test(name)) return 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?, #, :]';
  if (Buffer.byteLength(name) > 255) return 'index name is too long, (255 bytes at most)';
  return null;
}

export function checkIndexName(name: string): void {
  const why = invalidIndexName(name);
  if (why !== null)
    throw new ApiError('INVALID_REQUEST', `Invalid index name [${name}], ${why}`, { type: 'invalid_index_name_exception', index: name });
}
