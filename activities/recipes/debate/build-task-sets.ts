// Builds the multiagent-ft paper's debate task files (docs/recipes/debate.md); run directly, imported by nothing:
//   npx tsx activities/recipes/debate/build-task-sets.ts math <MATH dir> [--split test] [--levels 1,2,3] [--count 500] [--out file]
//     the MATH Levels 1–3 set of original_gen.py from a local copy of the dataset (<MATH dir>/<split>/<subject>/*.json)
//   npx tsx activities/recipes/debate/build-task-sets.ts arithmetic [--count 500] [--out file]
//     the arithmetic set of llm_multiagent_debate's math/gen_math.py
// One JSON line per task (stdout without --out), for `recipe.evalTasks` with `dataset: math` / `dataset: arithmetic`.
// A bad directory, problem file or option is one line naming it, exit code 2.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { arithmeticTasks } from './arithmetic';
import { buildMathSet, MathSetError } from './math-set';

const positive = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const digits = (v: string) => {
  const ds = v.split(',').map((d) => d.trim());
  if (!ds.every((d) => /^[1-5]$/.test(d))) throw new InvalidArgumentError('must be MATH levels 1 to 5, comma-separated (e.g. 1,2,3)');
  return ds;
};

function write(rows: readonly object[], out: string | undefined): void {
  const text = rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  if (out) {
    writeFileSync(out, text);
    console.error(`wrote ${rows.length} tasks to ${out}`);
  } else process.stdout.write(text);
}

const program = new Command('build-task-sets').description("the multiagent-ft paper's debate task files").showHelpAfterError();
program
  .command('math <dir>')
  .description(
    'MATH problems as original_gen.py picks them: sorted, shuffled (Python random, seed 0), levels kept, shuffled again, the first --count',
  )
  .option('--split <name>', 'the MATH split folder', 'test')
  .option('--levels <digits>', 'levels to keep', digits, ['1', '2', '3'])
  .option('--count <n>', 'problems to keep', positive, 500)
  .option('--out <file>', 'the task file to write (default: stdout)')
  .action((dir: string, o: { split: string; levels: string[]; count: number; out?: string }) => {
    const rows = buildMathSet(dir, o);
    if (rows.length < o.count) console.error(`only ${rows.length} problems of levels ${o.levels.join(', ')} under ${dir}/${o.split}`);
    write(rows, o.out);
  });
program
  .command('arithmetic')
  .description('a+b*c+d-e*f problems as gen_math.py draws them (NumPy legacy random, seed 0)')
  .option('--count <n>', 'problems to draw', positive, 500)
  .option('--out <file>', 'the task file to write (default: stdout)')
  .action((o: { count: number; out?: string }) => write(arithmeticTasks(o.count), o.out));

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    program.parse();
  } catch (err) {
    if (!(err instanceof MathSetError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
    console.error(`build-task-sets: ${(err as Error).message}`);
    process.exit(2);
  }
}
