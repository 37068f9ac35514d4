// `collab-loop score`: a recipe's evaluator over a records file (cli/score.ts).
import { type Command, Option } from 'commander';
import { SCORE_HELP, scoreFile, type ScoreOptions } from '../score';
import { cliAction } from '../user-error';

export function scoreCommand(program: Command): void {
  program
    .command('score')
    .description("score records with a recipe's evaluator: one JSON line per input record")
    .requiredOption('--recipe <recipe>', SCORE_HELP.recipe)
    .option('--dataset <dataset>', SCORE_HELP.dataset)
    .requiredOption('--input <file>', 'records.jsonl (colbench-code: trajectories with `task` and `answer`)')
    .option('--tasks <file>', 'colbench-code: task file for records that carry only a task id')
    .addOption(new Option('--compat <mode>', "fixed (default) or the seed's behaviour").choices(['fixed', 'seed']).default('fixed'))
    .action(
      cliAction(async (o: ScoreOptions) => {
        for (const line of await scoreFile(o)) console.log(line);
      }),
    );
}
