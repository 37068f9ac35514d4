// The project's Python environment (bin/setup.js installs requirements.txt into ./.venv): one place for its paths.
import path from 'node:path';
import { PROJECT_ROOT } from './node-script';

export const venvExecutable = (name: string) => path.join(PROJECT_ROOT, '.venv', 'bin', name);
