/** Plain line logging to stderr/stdout with a level threshold (`log_level`). */

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const ORDER: Record<string, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(level: () => string): Logger {
  const enabled = (wanted: string): boolean => ORDER[wanted] >= (ORDER[level()] ?? 20);
  const line = (wanted: string, message: string): string => `${new Date().toISOString()} ${wanted} ${message}`;
  return {
    info: (message) => {
      if (enabled('info')) console.log(line('info', message));
    },
    warn: (message) => {
      if (enabled('warn')) console.error(line('warn', message));
    },
    error: (message) => {
      if (enabled('error')) console.error(line('error', message));
    },
  };
}
