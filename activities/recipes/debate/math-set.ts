// The paper's MATH task set, drawn from a local copy of Hendrycks MATH (one JSON per problem under
// <split>/<subject>/, fields problem, level, type, solution) as the multiagent-ft seed draws it in original_gen.py
// and ft_gen.py: every <split>/*/*.json in sorted path order, shuffled (Python random, seed 0); the problems whose
// level names 1, 2 or 3 kept in that order (the seed tests the digit's presence in the "Level n" string); those
// shuffled again from a fresh seed 0; the first 500. Python's random is reproduced by mersenne-twister.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { lastBoxed } from '../shared/boxed';
import { MersenneTwister, pythonShuffle } from '../shared/mersenne-twister';

/** A problem file the builder cannot use: names the file. */
export class MathSetError extends Error {
  override name = 'MathSetError';
}

export interface MathSetOptions {
  split?: string;
  /** Digits a problem's level must contain one of (the seed: 1, 2, 3). */
  levels?: readonly string[];
  count?: number;
  /** Python random seed of both shuffles (the seed: 0). */
  seed?: number;
}

/** One row of the task file: debate's math task format (tasks.ts reads the gold from `solution`). */
export interface MathSetRow {
  id: string;
  problem: string;
  solution: string;
  level: string;
  type: string;
}

// Python sorts str by code point; UTF-8 byte order is code-point order (JS `<` compares UTF-16 units).
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
// glob's `*` skips names that start with a dot.
const visible = (dir: string) => readdirSync(dir).filter((n) => !n.startsWith('.'));
const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** <split>/*\/*.json under `root`, as paths relative to it, sorted as Python's sorted(glob(...)). */
export function mathProblemFiles(root: string, split: string): string[] {
  const dir = path.join(root, split);
  if (!isDir(dir)) throw new MathSetError(`${dir}: no such directory (expected the MATH dataset's ${split}/<subject>/*.json)`);
  const files = visible(dir)
    .filter((subject) => isDir(path.join(dir, subject)))
    .flatMap((subject) =>
      visible(path.join(dir, subject))
        .filter((n) => n.endsWith('.json'))
        .map((n) => `${split}/${subject}/${n}`),
    );
  return files.sort(byCodePoint);
}

function readProblem(root: string, rel: string): MathSetRow {
  const file = path.join(root, rel);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new MathSetError(`${file}: not a JSON problem file (${(err as Error).message})`);
  }
  const row = (data ?? {}) as Record<string, unknown>;
  for (const field of ['problem', 'level', 'type', 'solution'])
    if (typeof row[field] !== 'string') throw new MathSetError(`${file}: field "${field}" must be a string`);
  const id = rel
    .split('/')
    .slice(1)
    .join('/')
    .replace(/\.json$/, '');
  return { id, problem: row.problem as string, solution: row.solution as string, level: row.level as string, type: row.type as string };
}

export function buildMathSet(root: string, o: MathSetOptions = {}): MathSetRow[] {
  const { split = 'test', levels = ['1', '2', '3'], count = 500, seed = 0 } = o;
  const files = pythonShuffle(mathProblemFiles(root, split), MersenneTwister.python(seed));
  const kept = files.map((rel) => readProblem(root, rel)).filter((p) => levels.some((d) => p.level.includes(d)));
  const chosen = pythonShuffle(kept, MersenneTwister.python(seed)).slice(0, count);
  for (const p of chosen)
    if (lastBoxed(p.solution) === undefined)
      throw new MathSetError(`${path.join(root, split, `${p.id}.json`)}: field "solution" has no \\boxed{} answer to grade against`);
  return chosen;
}
