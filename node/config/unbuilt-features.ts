/**
 * Config keys whose feature this version does not have. Such a key is refused unless it holds its
 * default, so a file that writes the defaults out still starts, and a setting can never ask for a
 * feature that is silently missing. The change that builds a feature deletes its lines here.
 */
import { CONFIG_SCHEMA, defaultConfig, type Config, type FieldKind } from './schema';
import { parseDurationMs, parseSizeBytes } from './units';

/** A dotted key, or a whole section, and the feature it configures. */
export const NOT_BUILT: Readonly<Record<string, string>> = {
  // Every node of a cluster is coordinator and shard (`all`): the other roles are not built.
  'cluster.role': 'cluster mode',
  // Sections that hold nothing yet.
  views: 'the views section',
  profiles: 'the profiles section',
};

export interface UnbuiltSetting {
  /** Dotted key as the user writes it (`cluster.role`, `views.recent`). */
  key: string;
  value: unknown;
  feature: string;
  /** The default to fall back on; undefined for keys of free sections, which have none. */
  defaultValue: unknown;
}

/** Whether two values of a kind mean the same setting (`15s` and `15000ms` do). */
function sameSetting(kind: FieldKind, a: unknown, b: unknown): boolean {
  if (kind === 'duration' || kind === 'size') {
    const parse = kind === 'duration' ? parseDurationMs : parseSizeBytes;
    return (typeof a === 'string' || typeof a === 'number') && (typeof b === 'string' || typeof b === 'number') && parse(a) === parse(b);
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Every setting of `config` that asks for a feature this version lacks, in table order. */
export function unbuiltSettings(config: Config): UnbuiltSetting[] {
  const defaults = defaultConfig();
  const found: UnbuiltSetting[] = [];
  for (const [entry, feature] of Object.entries(NOT_BUILT)) {
    const [section, only] = entry.split('.') as [string, string | undefined];
    const kind = CONFIG_SCHEMA[section];
    if (kind === undefined) continue;
    if (kind === 'free') {
      for (const [key, value] of Object.entries(asRecord(config[section]))) {
        found.push({ key: `${section}.${key}`, value, feature, defaultValue: undefined });
      }
    } else if (typeof kind === 'string') {
      if (!sameSetting(kind, config[section], defaults[section])) {
        found.push({ key: section, value: config[section], feature, defaultValue: defaults[section] });
      }
    } else {
      const current = asRecord(config[section]);
      const initial = asRecord(defaults[section]);
      for (const key of only === undefined ? Object.keys(kind) : [only]) {
        const keyKind = kind[key];
        if (keyKind !== undefined && !sameSetting(keyKind, current[key], initial[key])) {
          found.push({ key: `${section}.${key}`, value: current[key], feature, defaultValue: initial[key] });
        }
      }
    }
  }
  return found;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** What to tell the user: the key, that its feature is not available, and how to proceed. */
export function unbuiltMessage(setting: UnbuiltSetting): string {
  const known = setting.defaultValue !== undefined && setting.defaultValue !== null;
  const fallback = known ? ` or set it to its default (${shown(setting.defaultValue)})` : '';
  return `${setting.key} = ${shown(setting.value)}: ${setting.feature} is not available in this version; remove the key${fallback}`;
}
