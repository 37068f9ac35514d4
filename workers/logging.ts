// Worker logging for collab-loop processes. Each task queue gets its own worker holding only workflows or only
// activities (so GPU, CPU and LLM capacity scale separately); Temporal warns about the missing half on every
// start, which is expected here and is dropped. Everything else at or above the level is printed.
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import type { LogLevel } from '@temporalio/common';

const EXPECTED = /^No (workflows|activities) registered, not polling/;

function print(entry: LogEntry): void {
  if (EXPECTED.test(entry.message)) return;
  const when = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = entry.meta && Object.keys(entry.meta).length ? ` ${JSON.stringify(entry.meta)}` : '';
  process.stderr.write(`${when} [${entry.level}] ${entry.message}${meta}\n`);
}

/** Installs the process-wide Temporal runtime logger once; later calls are no-ops. `COLLAB_LOOP_LOG_LEVEL` overrides. */
export function installWorkerLogging(level: LogLevel = 'INFO'): void {
  const chosen = (process.env.COLLAB_LOOP_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) ?? level;
  try {
    Runtime.install({ logger: new DefaultLogger(chosen, print) });
  } catch {
    /* already installed in this process */
  }
}
