/** The OpenTelemetry exporter as the client tests drive it: each export's result code kept for the test to check. */
import type { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';

/**
 * `exporter` wrapped so that every export's result code (0 = SUCCESS) lands in `results`: the SDK
 * itself only logs failures.
 */
export function recordingExporter(exporter: OTLPLogExporter): { recording: LogRecordExporter; results: number[] } {
  const results: number[] = [];
  const recording: LogRecordExporter = {
    export: (logs, done) =>
      exporter.export(logs, (result) => {
        results.push(result.code);
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  return { recording, results };
}
