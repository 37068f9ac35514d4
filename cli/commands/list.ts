// `collab-loop list`: the runs the server knows (cli/list-runs.ts).
import type { Command } from 'commander';
import { listRuns, renderRunRows } from '../list-runs';
import { connectClientRetrying, serverRetryMs, withServerRetry } from '../server-retry';
import { cliAction } from '../user-error';

export function listCommand(program: Command): void {
  program
    .command('list')
    .description('runs known to the server: state, iteration, stage and start')
    .option('--json', 'one JSON array of {run, recipe, state, iteration, iterations, stage, started}')
    .action(
      cliAction(async (o: { json?: boolean }) => {
        const client = await connectClientRetrying('status');
        const rows = await withServerRetry(() => listRuns(client), { what: 'listing runs', giveUpAfterMs: serverRetryMs('status') });
        console.log(o.json ? JSON.stringify(rows, null, 2) : renderRunRows(rows));
      }),
    );
}
