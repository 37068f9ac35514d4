// What a bench section printed, kept as the current figures in docs/benchmarks.md: its block `bench:<section>` is
// replaced (scripts/marked-block.ts), stamped with the date and the machine, so the page never drifts into a diary.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { format } from 'node:util';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';
import { replaceMarkedBlock } from './marked-block';

export const BENCHMARKS_DOC = path.join(PROJECT_ROOT, 'docs/benchmarks.md');

export const benchBlockName = (section: string) => `bench:${section}`;

export interface Machine {
  date: string;
  cores: number;
  memoryGiB: number;
}

export const thisMachine = (): Machine => ({
  date: new Date().toISOString().slice(0, 10),
  cores: os.cpus().length,
  memoryGiB: os.totalmem() / 1024 ** 3,
});

/** The block's Markdown: the stamp, then the printed lines as they were printed (leading blank lines dropped). */
export function figuresBlock(command: string, printed: string, m: Machine): string {
  const lines = printed.replace(/^\n+/, '').replace(/\s+$/, '');
  return [`\`${command}\`, ${m.date}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB memory:`, '', '```text', lines, '```'].join('\n');
}

/** Runs `work` (what `command` runs), printing as usual, and writes what it printed into the block `bench:<block>`.
 *  A page without the block costs a warning, never the figures on the terminal. */
export async function recordFigures(block: string, command: string, work: () => Promise<void>, doc = BENCHMARKS_DOC): Promise<void> {
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    printed.push(format(...args));
    log(...args);
  };
  try {
    await work();
  } finally {
    console.log = log;
  }
  try {
    const text = replaceMarkedBlock(
      readFileSync(doc, 'utf8'),
      benchBlockName(block),
      figuresBlock(command, printed.join('\n'), thisMachine()),
    );
    writeFileSync(doc, text);
  } catch (err) {
    console.warn(`bench: the figures of ${block} not written to ${doc}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
