/**
 * The command line: `trawl cluster remove|forget <node_id>` (cluster-command.ts) and `trawl server [--config FILE] [--listen HOST:PORT] [--data-dir DIR]
 * [--grpc-listen HOST:PORT] [--node-id ID] [--seeds HOST:PORT,...] [--set section.key=value ...]`.
 */
import { parseArgs } from 'util';
import type { CommandLineOverrides } from './config/load';
import { CLUSTER_USAGE, runClusterCommand } from './cluster-command';
import { runServer } from './server-process';

const USAGE = `usage: trawl server [--config FILE] [--listen HOST:PORT] [--data-dir DIR]
                    [--grpc-listen HOST:PORT] [--node-id ID] [--seeds HOST:PORT,...]
                    [--set section.key=value ...]
       ${CLUSTER_USAGE.replace('usage: ', '')}`;

/** Flags that are shorthands for config keys (applied after the file and the environment). */
const FLAG_KEYS: Record<string, string> = {
  listen: 'listen',
  'data-dir': 'data_dir',
  'grpc-listen': 'cluster.grpc_listen',
  'node-id': 'cluster.node_id',
  seeds: 'cluster.seeds',
};

export function parseCommandLine(argv: string[]): { command: string; overrides: CommandLineOverrides } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      listen: { type: 'string' },
      'data-dir': { type: 'string' },
      'grpc-listen': { type: 'string' },
      'node-id': { type: 'string' },
      seeds: { type: 'string' },
      set: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) return { command: 'help', overrides: { sets: [] } };
  const sets: [string, string][] = [];
  for (const [flag, key] of Object.entries(FLAG_KEYS)) {
    const value = values[flag as keyof typeof values];
    if (typeof value === 'string') sets.push([key, JSON.stringify(value)]);
  }
  for (const assignment of values.set ?? []) {
    const equals = assignment.indexOf('=');
    if (equals <= 0) throw new Error(`--set expects section.key=value, got "${assignment}"`);
    sets.push([assignment.slice(0, equals).trim(), assignment.slice(equals + 1)]);
  }
  return { command: positionals[0] ?? 'server', overrides: { configFile: values.config, sets } };
}

export function main(): void {
  if (process.argv[2] === 'cluster') {
    runClusterCommand(process.argv.slice(3)).then(
      (code) => process.exit(code),
      (error: unknown) => {
        // The command answers its own failures with a message and a code; anything else is a bug to report whole.
        console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
        process.exit(1);
      },
    );
    return;
  }
  let parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    console.error(`trawl: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (parsed.command === 'help') {
    console.log(USAGE);
    return;
  }
  if (parsed.command !== 'server') {
    console.error(`trawl: unknown command "${parsed.command}"\n${USAGE}`);
    process.exit(2);
  }
  runServer(parsed.overrides).catch((error: Error) => {
    console.error(`trawl: ${error.message}`);
    process.exit(1);
  });
}

if (require.main === module) main();
