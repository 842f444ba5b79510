/**
 * Config validation and merging: one path for the file, the environment, flags, SIGHUP reload and
 * `PATCH /config`, so that every source is checked the same way.
 */
import { nearest } from '../../query/syntax/suggest';
import { isHostPort, isMemberAddress, nodeIdProblem } from './peer-names';
import { CONFIG_SCHEMA, type Config, type ConfigSection, type ConfigValue, type FieldKind } from './schema';
import { unbuiltMessage, unbuiltSettings } from './unbuilt-features';
import { parseDurationMs, parseSizeBytes } from './units';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = new Set(['debug', 'info', 'warn', 'error', 'silent']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks (and lightly coerces, e.g. `"10"` for an integer) one value; throws ConfigError naming the key. */
export function coerceValue(key: string, kind: FieldKind, value: unknown): ConfigValue {
  if (value === null && kind !== 'free') {
    if (kind === 'string') return null;
    throw new ConfigError(`${key}: a value is required`);
  }
  switch (kind) {
    case 'string':
      if (typeof value === 'string' || typeof value === 'number') return String(value);
      break;
    case 'listen':
      if (typeof value === 'string' && isHostPort(value)) return value;
      throw new ConfigError(`${key}: expected HOST:PORT, got ${JSON.stringify(value)}`);
    case 'log-level':
      if (typeof value === 'string' && LOG_LEVELS.has(value)) return value;
      throw new ConfigError(`${key}: expected one of ${[...LOG_LEVELS].join(', ')}`);
    case 'duration':
      if ((typeof value === 'string' || typeof value === 'number') && parseDurationMs(value) !== null) {
        return value;
      }
      throw new ConfigError(`${key}: expected a duration like 30s, 5m, 7d; got ${JSON.stringify(value)}`);
    case 'size':
      if ((typeof value === 'string' || typeof value === 'number') && parseSizeBytes(value) !== null) {
        return value;
      }
      throw new ConfigError(`${key}: expected a size like 64mb; got ${JSON.stringify(value)}`);
    case 'integer': {
      const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof number === 'number' && Number.isInteger(number) && number >= 0) return number;
      throw new ConfigError(`${key}: expected a non-negative integer; got ${JSON.stringify(value)}`);
    }
    case 'fraction': {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof number === 'number' && number > 0 && number <= 1) return number;
      throw new ConfigError(`${key}: expected a number above 0 and at most 1; got ${JSON.stringify(value)}`);
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new ConfigError(`${key}: expected true or false; got ${JSON.stringify(value)}`);
    case 'string-list':
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
      if (typeof value === 'string') {
        return value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item.length > 0);
      }
      throw new ConfigError(`${key}: expected a list of strings`);
    case 'free':
      if (isPlainObject(value)) return value;
      throw new ConfigError(`${key}: expected an object`);
  }
  throw new ConfigError(`${key}: expected a ${kind}; got ${JSON.stringify(value)}`);
}

/**
 * Merges `patch` (a partial config, as parsed from YAML or JSON) over `base` and returns a new
 * config. Unknown keys are errors. Values are validated by kind, and a key of a feature this
 * version lacks is refused unless it holds its default (unbuilt-features.ts).
 */
/** Every key a config may hold, dotted (`storage.flush_interval`). */
function configKeyNames(): string[] {
  return Object.entries(CONFIG_SCHEMA).flatMap(([key, kind]) =>
    typeof kind === 'string' ? [key] : Object.keys(kind).map((sub) => `${key}.${sub}`),
  );
}

/** The refusal of an unknown key, with the key meant when one is close, or of the same name in another section. */
function unknownKey(origin: string, name: string): ConfigError {
  const names = configKeyNames();
  const last = name.slice(name.lastIndexOf('.') + 1);
  const meant = nearest(name, names) ?? names.find((each) => each.slice(each.lastIndexOf('.') + 1) === last) ?? null;
  return new ConfigError(`${origin}: unknown key "${name}"${meant === null ? '' : `; did you mean "${meant}"?`}`);
}

export function mergeConfig(base: Config, patch: unknown, origin: string): Config {
  if (patch === null || patch === undefined) return base;
  if (!isPlainObject(patch)) throw new ConfigError(`${origin}: the config must be a mapping of keys`);
  const merged: Config = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    const kind = CONFIG_SCHEMA[key];
    if (kind === undefined) throw unknownKey(origin, key);
    if (typeof kind === 'string') {
      if (kind === 'free') {
        const current = isPlainObject(merged[key]) ? (merged[key] as Record<string, unknown>) : {};
        merged[key] = { ...current, ...(coerceValue(key, kind, value) as Record<string, unknown>) };
      } else {
        merged[key] = coerceValue(key, kind, value);
      }
      continue;
    }
    if (value === null) continue;
    if (!isPlainObject(value)) throw new ConfigError(`${origin}: "${key}" must be a mapping`);
    const section = { ...(merged[key] as ConfigSection) };
    for (const [subKey, subValue] of Object.entries(value)) {
      const subKind = kind[subKey];
      if (subKind === undefined) throw unknownKey(origin, `${key}.${subKey}`);
      section[subKey] = coerceValue(`${key}.${subKey}`, subKind, subValue);
    }
    merged[key] = section;
  }
  checkConsistency(merged);
  const unbuilt = unbuiltSettings(merged);
  if (unbuilt.length > 0) throw new ConfigError(`${origin}: ${unbuilt.map(unbuiltMessage).join('; ')}`);
  return merged;
}

/** Listening on every interface: fine alone, but no address a peer could be told to call. */
const WILDCARD_HOST = /^(0\.0\.0\.0|\[?::\]?|):\d+$/;

/** A shorter cluster.secret could be guessed offline from one proof seen on the wire. */
const MIN_SECRET_LENGTH = 16;

/** A smaller body limit would refuse nearly every request with a body: a query, a saved query, a batch. */
const MIN_MAX_BODY_SIZE = '1kb';

/** More threads of one kind than this only oversubscribes any machine Node runs on. */
const MAX_WORKERS = 64;

/** Cross-key rules that single values cannot express. */
function checkConsistency(config: Config): void {
  const query = config.query as ConfigSection;
  if ((query.default_result_limit as number) > (query.max_result_limit as number)) {
    throw new ConfigError('query.default_result_limit must not exceed query.max_result_limit');
  }
  const storage = config.storage as ConfigSection;
  const level = storage.compression_level as number;
  if (level < 1 || level > 19) throw new ConfigError('storage.compression_level must be 1 to 19');
  if ((storage.segment_max_events as number) < 1) throw new ConfigError('storage.segment_max_events must be at least 1');
  const maxBodySize = (config.ingest as ConfigSection).max_body_size as string | number;
  if ((parseSizeBytes(maxBodySize) ?? 0) < (parseSizeBytes(MIN_MAX_BODY_SIZE) ?? 0)) {
    throw new ConfigError(`ingest.max_body_size must be at least ${MIN_MAX_BODY_SIZE} (got ${String(maxBodySize)})`);
  }
  const cluster = config.cluster as ConfigSection;
  if ((cluster.partitions as number) < 1) throw new ConfigError('cluster.partitions must be at least 1');
  if ((cluster.replication_factor as number) < 1) throw new ConfigError('cluster.replication_factor must be at least 1');
  const secret = cluster.secret as string | null;
  // The message never holds the secret: a config error is logged and answered to PATCH /config.
  if (secret !== null && secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `cluster.secret must be at least ${MIN_SECRET_LENGTH} characters (it has ${secret.length}); a long random one, the same on every node`,
    );
  }
  if ((cluster.seeds as string[]).length > 0) {
    const idProblem = nodeIdProblem(String(cluster.node_id ?? ''));
    if (idProblem !== null) throw new ConfigError(`cluster.node_id: ${idProblem}`);
    for (const [key, address] of [
      ['listen', config.listen],
      ['cluster.grpc_listen', cluster.grpc_listen],
    ] as const) {
      if (WILDCARD_HOST.test(address as string)) {
        throw new ConfigError(
          `${key} = "${String(address)}": in a cluster the peers reach this node at the address it listens on; listen on one they can reach (its host name or IP), not a wildcard`,
        );
      }
      if (!isMemberAddress(address as string)) {
        throw new ConfigError(
          `${key} = "${String(address)}": in a cluster a host name (letters, digits, ".", "_", "-"), an IPv4 address or [IPv6] and a port`,
        );
      }
    }
  }
  const tail = config.tail as ConfigSection;
  for (const key of ['heartbeat_interval', 'max_session_duration']) {
    if ((parseDurationMs(tail[key] as string) ?? 0) < 1) throw new ConfigError(`tail.${key} must be longer than 0`);
  }
  const server = config.server as ConfigSection;
  for (const key of ['ingest_workers', 'query_workers', 'codec_workers']) {
    const count = server[key] as number;
    if (count < 0 || count > MAX_WORKERS) throw new ConfigError(`server.${key} must be 0 (sized from the cores) to ${MAX_WORKERS}`);
  }
}

/** Dotted keys whose values differ between two configs (for reload reports). */
export function changedKeys(before: Config, after: Config): string[] {
  const changed: string[] = [];
  for (const key of Object.keys(after)) {
    const a = before[key];
    const b = after[key];
    if (isPlainObject(b) && isPlainObject(a) && typeof CONFIG_SCHEMA[key] !== 'string') {
      for (const subKey of Object.keys(b)) {
        if (JSON.stringify(a[subKey]) !== JSON.stringify(b[subKey])) changed.push(`${key}.${subKey}`);
      }
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      changed.push(key);
    }
  }
  return changed;
}
