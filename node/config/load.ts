/**
 * Config sources in precedence order: defaults < YAML file < `TRAWL_<SECTION>_<KEY>` environment
 * < command-line flags (including `--set section.key=value`).
 */
import fs from 'fs';
import YAML from 'yaml';
import { CONFIG_SCHEMA, defaultConfig, type Config } from './schema';
import { ConfigError, mergeConfig } from './validate';

export interface CommandLineOverrides {
  configFile?: string;
  /** Dotted key -> raw text value. */
  sets: [string, string][];
}

export function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
  }
  try {
    return YAML.parse(text) ?? {};
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(error as Error).message}`);
  }
}

/** A text value from the environment or `--set`, read as a YAML scalar or flow list (`[a, b]`, `true`, `10`). */
function parseScalar(text: string): unknown {
  try {
    const value: unknown = YAML.parse(text);
    return value === undefined ? text : value;
  } catch {
    return text;
  }
}

/** Turns `section.key` (or a top-level `key`) and a value into a nested patch object. */
function patchFor(dottedKey: string, value: unknown): Record<string, unknown> {
  const dot = dottedKey.indexOf('.');
  if (dot === -1) return { [dottedKey]: value };
  return { [dottedKey.slice(0, dot)]: { [dottedKey.slice(dot + 1)]: value } };
}

/** `TRAWL_STORAGE_FLUSH_INTERVAL` -> `storage.flush_interval`; unknown names are ignored (e.g. TRAWL_ROOT_TOKEN). */
export function envKeyToConfigKey(name: string): string | null {
  if (!name.startsWith('TRAWL_')) return null;
  const rest = name.slice('TRAWL_'.length).toLowerCase();
  for (const [section, kind] of Object.entries(CONFIG_SCHEMA)) {
    if (typeof kind === 'string') {
      if (rest === section) return section;
      continue;
    }
    if (rest.startsWith(`${section}_`)) {
      const key = rest.slice(section.length + 1);
      if (key in kind) return `${section}.${key}`;
    }
  }
  return null;
}

/** Each `TRAWL_*` variable that names a key: the key, its value and the variable's name. */
function envPatches(env: NodeJS.ProcessEnv): [string, unknown, string][] {
  const patches: [string, unknown, string][] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const key = envKeyToConfigKey(name);
    if (key !== null) patches.push([key, parseScalar(value), name]);
  }
  return patches;
}

/** Builds the effective config from every source. Throws ConfigError with the offending key. */
export function loadConfig(overrides: CommandLineOverrides, env: NodeJS.ProcessEnv = process.env): Config {
  let config = defaultConfig();
  if (overrides.configFile !== undefined) {
    config = mergeConfig(config, readConfigFile(overrides.configFile), overrides.configFile);
  }
  for (const [key, value, name] of envPatches(env)) {
    config = mergeConfig(config, patchFor(key, value), `environment ${name}`);
  }
  for (const [key, value] of overrides.sets) {
    config = mergeConfig(config, patchFor(key, parseScalar(value)), `--set ${key}`);
  }
  return config;
}
