import { existsSync, readFileSync } from 'node:fs';

/** The last `lines` lines of a subprocess's log file ('' when it wrote none): what an error about that process quotes. */
export const logTail = (file: string, lines = 20): string =>
  existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
