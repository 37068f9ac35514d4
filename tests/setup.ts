// Quiet Temporal's worker-state INFO lines in test output; warnings and errors still show.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  /* already installed in this process */
}
