// The project's Python environment (bin/setup.js installs requirements.txt into ./.venv): one place for its paths.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './node-script';

export const venvExecutable = (name: string) => path.join(PROJECT_ROOT, '.venv', 'bin', name);

/**
 * A bare command name (`deepspeed`, `torchrun`, `fairseq2`) as the console script beside `python` in its venv's bin/,
 * when that venv has one: a trainer's launcher then runs from the environment `trainer.python` names, whatever PATH
 * holds. Paths and names the venv lacks are left to PATH.
 */
export function scriptBeside(python: string, command: string): string {
  if (command.includes('/')) return command;
  const script = path.join(path.dirname(python), command);
  return existsSync(script) ? script : command;
}
