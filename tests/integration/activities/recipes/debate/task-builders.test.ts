// The paper's task sets, built by activities/recipes/debate/build-task-sets.ts: the MATH Levels 1–3 selection of multiagent-ft's
// original_gen.py (sorted glob, random.seed(0) shuffle, level digits kept, a fresh seed-0 shuffle, the first N) on a
// small MATH-format fixture written here, and gen_math.py's arithmetic draws (np.random.seed(0), randint(0, 30) × 6).
// The expected selections come from the project's Python (.venv) running those steps with Python's own random and
// NumPy, so the Mersenne Twister port is checked against the generators themselves.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { arithmeticTasks } from '../../../../../activities/recipes/debate/arithmetic';
import { buildMathSet } from '../../../../../activities/recipes/debate/math-set';
import { loadDebateTasks } from '../../../../../activities/recipes/debate/tasks';
import { MersenneTwister, numpyRandint, pythonShuffle } from '../../../../../activities/recipes/shared/mersenne-twister';
import { nodeScriptArgv } from '../../../../../activities/subprocess/node-script';
import { tempStateDir } from '../../../../helpers/config';
import { VENV_PYTHON } from '../../../../helpers/tiny-model';

const python = async (code: string, ...args: string[]) => JSON.parse((await execa(VENV_PYTHON, ['-c', code, ...args])).stdout);

const root = tempStateDir('debate-math-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A MATH-format copy: <split>/<subject>/<n>.json with problem, level, type, solution. Levels 1–5 and "Level ?";
// names that sort differently as strings and as numbers (10 before 2); a hidden file and a non-JSON file glob skips.
const SUBJECTS = ['algebra', 'counting_and_probability', 'geometry', 'number_theory'];
const LEVELS = ['Level 1', 'Level 2', 'Level 3', 'Level 4', 'Level 5', 'Level ?'];
let k = 0;
for (const split of ['test', 'train'])
  for (const subject of SUBJECTS)
    for (let n = 0; n < 14; n++) {
      const dir = path.join(root, 'MATH', split, subject);
      mkdirSync(dir, { recursive: true });
      const level = LEVELS[k++ % LEVELS.length];
      writeFileSync(
        path.join(dir, `${n * 7}.json`),
        JSON.stringify({
          problem: `${split} ${subject} ${n}: what is ${n}+1?`,
          level,
          type: subject,
          solution: `It is $\\boxed{${n + 1}}$.`,
        }),
      );
    }
writeFileSync(path.join(root, 'MATH', 'test', 'algebra', '.hidden.json'), '{}');
writeFileSync(path.join(root, 'MATH', 'test', 'algebra', 'notes.txt'), 'not a problem');
const MATH = path.join(root, 'MATH');

// original_gen.py's selection, step by step, with Python's random.
const SEED_SELECTION = `
import glob, json, random, sys, os
root, split, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(glob.glob(os.path.join(root, split, "*", "*.json")))
random.seed(0)
random.shuffle(files)
kept = [f for f in files if any(d in json.load(open(f))["level"] for d in "123")]
random.seed(0)
random.shuffle(kept)
print(json.dumps([os.path.relpath(f, os.path.join(root, split))[:-5] for f in kept[:count]]))
`;

describe('Python random, reproduced', () => {
  it('random.seed(n) + random.shuffle gives the permutation CPython gives', async () => {
    const cases = [
      [0, 1],
      [0, 2],
      [0, 57],
      [0, 700],
      [1, 33],
      [2 ** 32 + 5, 100],
    ] as const;
    const expected = await python(
      'import json, random, sys\nout = []\nfor s, n in json.loads(sys.argv[1]):\n  x = list(range(n)); random.seed(s); random.shuffle(x); out.append(x)\nprint(json.dumps(out))',
      JSON.stringify(cases),
    );
    const ours = cases.map(([s, n]) => pythonShuffle([...Array(n).keys()], MersenneTwister.python(s)));
    expect(ours).toEqual(expected);
  });

  it("NumPy's legacy seed + randint(0, 30) give NumPy's draws", async () => {
    const expected = await python(
      'import json, numpy as np\nnp.random.seed(0)\nprint(json.dumps(np.random.randint(0, 30, size=600).tolist()))',
    );
    const g = MersenneTwister.numpyLegacy(0);
    expect(Array.from({ length: 600 }, () => numpyRandint(g, 0, 30))).toEqual(expected);
  });
});

describe('the MATH set (original_gen.py)', () => {
  it('selects and orders the problems as the seed does', async () => {
    const expected: string[] = await python(SEED_SELECTION, MATH, 'test', '20');
    const rows = buildMathSet(MATH, { count: 20 });
    expect(rows.map((r) => r.id)).toEqual(expected);
    expect(expected).toHaveLength(20);
    // Only levels 1–3 of the test split, fields as the dataset has them.
    for (const r of rows) expect(r.level).toMatch(/^Level [123]$/);
    expect(rows[0].problem).toMatch(/^test /);
    // Fewer problems than asked: all of them, still in the seed's order.
    const all: string[] = await python(SEED_SELECTION, MATH, 'test', '500');
    expect(buildMathSet(MATH).map((r) => r.id)).toEqual(all);
    expect(all.length).toBeGreaterThan(20);
  });

  it('the script writes a task file debate reads, and names a bad directory or problem file in one line', async () => {
    const out = path.join(root, 'math-500.jsonl');
    const [node, argv] = nodeScriptArgv('activities/recipes/debate/build-task-sets.ts', ['math', MATH, '--count', '20', '--out', out]);
    await execa(node, argv);
    const tasks = loadDebateTasks(out, 'math');
    expect(tasks.map((t) => t.id)).toEqual(await python(SEED_SELECTION, MATH, 'test', '20'));
    const first = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]);
    expect(tasks[0]).toMatchObject({ problem: first.problem, gold: String(Number(first.problem.match(/is (\d+)\+1/)[1]) + 1) });

    const missing = await execa(
      node,
      [...nodeScriptArgv('activities/recipes/debate/build-task-sets.ts', ['math', path.join(root, 'nowhere')])[1]],
      {
        reject: false,
      },
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `build-task-sets: ${path.join(root, 'nowhere', 'test')}: no such directory (expected the MATH dataset's test/<subject>/*.json)`,
    );

    const broken = path.join(root, 'broken');
    mkdirSync(path.join(broken, 'test', 'algebra'), { recursive: true });
    writeFileSync(path.join(broken, 'test', 'algebra', '1.json'), JSON.stringify({ problem: 'p', type: 'Algebra', solution: 's' }));
    const bad = await execa(node, nodeScriptArgv('activities/recipes/debate/build-task-sets.ts', ['math', broken])[1], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe(`build-task-sets: ${path.join(broken, 'test', 'algebra', '1.json')}: field "level" must be a string`);
  });
});

describe('the arithmetic set (gen_math.py)', () => {
  it("draws the seed's a+b*c+d-e*f problems and debate grades them by value", async () => {
    const draws: number[][] = await python(
      'import json, numpy as np\nnp.random.seed(0)\nprint(json.dumps([np.random.randint(0, 30, size=6).tolist() for _ in range(100)]))',
    );
    const rows = arithmeticTasks(100);
    expect(rows.map((r) => r.question)).toEqual(draws.map(([a, b, c, d, e, f]) => `What is the result of ${a}+${b}*${c}+${d}-${e}*${f}?`));
    expect(rows.map((r) => r.answer)).toEqual(draws.map(([a, b, c, d, e, f]) => a + b * c + d - e * f));
    // 500 (the paper's count) starts with the seed's 100.
    expect(arithmeticTasks(500).slice(0, 100)).toEqual(rows);

    const out = path.join(root, 'arithmetic.jsonl');
    const [node, argv] = nodeScriptArgv('activities/recipes/debate/build-task-sets.ts', ['arithmetic', '--count', '100', '--out', out]);
    await execa(node, argv);
    const tasks = loadDebateTasks(out, 'arithmetic');
    expect(tasks.map((t) => t.gold)).toEqual(rows.map((r) => String(r.answer)));
    expect(tasks.some((t) => t.gold.startsWith('-'))).toBe(true);
  });
});
