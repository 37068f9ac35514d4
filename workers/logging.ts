// Worker logging for collab-loop processes. Each task queue gets its own worker holding only workflows or only
// activities (so GPU, CPU and LLM capacity scale separately); Temporal warns about the missing half on every
// start, which is expected here and is dropped. Everything else at or above the level is printed.
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import type { LogLevel } from '@temporalio/common';
import { useMetricMeter } from '../activities/metrics';

const EXPECTED = /^No (workflows|activities) registered, not polling/;
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

function print(entry: LogEntry): void {
  if (EXPECTED.test(entry.message)) return;
  const when = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = entry.meta && Object.keys(entry.meta).length ? ` ${JSON.stringify(entry.meta)}` : '';
  process.stderr.write(`${when} [${entry.level}] ${entry.message}${meta}\n`);
}

/** Stages last from a second (undeploy) to a day (training): the exporter's default boundaries are sized for task
 *  latencies, and a scrape could not tell a ten-minute stage from a ten-hour one. */
export const STAGE_SECONDS_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400];

/**
 * Installs the process-wide Temporal runtime logger once; later calls are no-ops. `COLLAB_LOOP_LOG_LEVEL` overrides.
 * `metricsPort`: the runtime also serves Prometheus metrics on that port of `metricsHost` (default loopback) at /metrics — the SDK's
 * worker metrics and the project's (activities/metrics.ts). The runtime is installed once per process, so metrics
 * must be asked for by the first call.
 */
export function installWorkerLogging(level: LogLevel = 'WARN', metricsPort?: number, metricsHost = '127.0.0.1'): void {
  const chosen = (process.env.COLLAB_LOOP_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) ?? level;
  const metrics =
    metricsPort === undefined
      ? undefined
      : {
          prometheus: {
            bindAddress: `${metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost}:${metricsPort}`,
            histogramBucketOverrides: { collab_loop_stage_seconds: STAGE_SECONDS_BUCKETS },
          },
        };
  try {
    Runtime.install({ logger: new DefaultLogger(chosen, print), ...(metrics ? { telemetryOptions: { metrics } } : {}) });
  } catch (err) {
    if (metrics) throw err; /* else already installed in this process */
  }
  if (metrics) useMetricMeter(Runtime.instance().metricMeter);
}

/**
 * The workflow bundler's logger: webpack's statistics (~20 lines per start) are build noise for a user, so they go
 * out at DEBUG; the bundler's warnings and errors keep their level.
 */
export function bundlerLogger() {
  const log = () => Runtime.instance().logger;
  return {
    trace: (m: string, meta?: Record<string, unknown>) => log().trace(m, meta),
    debug: (m: string, meta?: Record<string, unknown>) => log().debug(m, meta),
    info: (m: string, meta?: Record<string, unknown>) => log().debug(m, meta),
    warn: (m: string, meta?: Record<string, unknown>) => log().warn(m, meta),
    error: (m: string, meta?: Record<string, unknown>) => log().error(m, meta),
    log: (level: LogLevel, m: string, meta?: Record<string, unknown>) => log().log(level === 'INFO' ? 'DEBUG' : level, m, meta),
  };
}
