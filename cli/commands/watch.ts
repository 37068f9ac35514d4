// `collab-loop watch <name>`: the live display of a run until it closes (cli/watch-run.ts).
import type { Command } from 'commander';
import { connectClientRetrying } from '../server-retry';
import { cliAction } from '../user-error';
import { followRun } from '../watch-run';

export function watchCommand(program: Command): void {
  program
    .command('watch <name>')
    .description(
      'show a run live until it closes: stage, counts, rate, ETA, LLM calls, tokens, spend, trainer step and loss; exit 0 when it completed (Ctrl-C detaches, the run goes on)',
    )
    .action(
      cliAction(async (name: string) => {
        const client = await connectClientRetrying('status');
        await followRun(client, name);
      }),
    );
}
