// The journal format both request caches write (journal-cache.ts on local disk, object-journal-cache.ts in an object
// store): one JSON line {k: key, a: answer} per answer. The index (journal-index.ts) says where a key's line is.
import type { CachedAnswer } from './types';

/** The journal line holding `answer` under `key`, newline included. */
export function journalLine(key: string, answer: CachedAnswer): string {
  return `${JSON.stringify({ k: key, a: answer })}\n`;
}

/** The answer of a journal line (without its newline), when the line is `key`'s. Anything else — a line that does not
 *  parse, another key's line where the index points (a journal replaced under the same name) — is a miss: paying
 *  again is safe, another call's answer is not. */
export function answerOf(line: Buffer, key: string): CachedAnswer | undefined {
  try {
    const parsed = JSON.parse(line.toString('utf8')) as { k?: unknown; a?: CachedAnswer };
    return parsed.k === key ? parsed.a : undefined;
  } catch {
    return undefined;
  }
}

/** A line of a journal: its key, where it starts and its length (newline excluded). */
export type JournalLine = [key: string, start: number, length: number];

/** Every whole line of `bytes` (a line that does not parse — a torn one — is left out: a miss is safe), starts
 *  shifted by `offset`, and where the part after the last newline starts (a line still being written, or none). */
export function linesOf(bytes: Buffer, offset = 0): { lines: JournalLine[]; end: number } {
  const lines: JournalLine[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
    const key = keyOf(bytes.subarray(start, nl));
    if (key) lines.push([key, offset + start, nl - start]);
    start = nl + 1;
  }
  return { lines, end: start };
}

/** The key of a journal line, or undefined for a torn one. */
function keyOf(line: Buffer): string | undefined {
  try {
    const k = (JSON.parse(line.toString('utf8')) as { k?: unknown }).k;
    return typeof k === 'string' ? k : undefined;
  } catch {
    return undefined;
  }
}
