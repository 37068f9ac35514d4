// Quiet Temporal's worker-state INFO lines in test output; warnings and errors still show.
import { installWorkerLogging } from '../workers/logging';

installWorkerLogging('WARN');
