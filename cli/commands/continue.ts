// `collab-loop continue <name>`: a closed run goes on from its last finished iteration (cli/continue-run.ts).
import type { Command } from 'commander';
import { connectClient } from '../connection';
import { continueLoop } from '../continue-run';
import { cliAction } from '../user-error';
import { followRun } from '../watch-run';

export function continueCommand(program: Command): void {
  program
    .command('continue <name>')
    .description('go on with a stopped, failed, terminated or timed-out run from its last finished iteration')
    .option('--wait', 'show its progress live until the run closes, then its metrics (as `watch`)')
    .action(
      cliAction(async (name: string, o: { wait?: boolean }) => {
        const client = await connectClient();
        const { input, state } = await continueLoop(client, name);
        console.log(
          `run ${name}: continuing at iteration ${state.iteration} of ${input.config.iterations} from checkpoint ${state.checkpoint}`,
        );
        if (o.wait) await followRun(client, name);
      }),
    );
}
