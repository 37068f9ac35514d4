// `collab-loop eval <config>`: one evaluation pass with in-process workers (cli/one-shot.ts, loaded only here).
import type { Command } from 'commander';
import { collect } from '../option-values';
import { loadRunConfig } from '../runs';
import { cliAction } from '../user-error';

export function evalCommand(program: Command): void {
  program
    .command('eval <config>')
    .description('one evaluation pass, no training (CoRal `validate`); runs its own workers')
    .option('--name <name>', 'run name (refused when used; default: <file>-eval, or the next free <file>-eval-2, …)')
    .option('--set <key=value>', 'override a config field (repeatable)', collect, [])
    .action(
      cliAction(async (file: string, o: { name?: string; set: string[] }) => {
        const { runEval } = await import('../one-shot');
        await runEval(
          await loadRunConfig(file, {
            overrides: o.set,
            name: o.name ?? `${file.replace(/^.*\//, '').replace(/\.ya?ml$/, '')}-eval`,
            evalOnly: true,
          }),
          { freshName: !o.name },
        );
      }),
    );
}
