// `collab-loop stop <name>`: signal the loop to stop and, unless --no-wait, wait for it to close.
import type { Command } from 'commander';
import { loopWorkflowId, stopSignal } from '../../contracts/messages';
import { connectClient } from '../connection';
import { requireRunning } from '../loop-workflow';
import { isTransientServerError, serverRetryMs, withServerRetry } from '../server-retry';
import { cliAction } from '../user-error';

export function stopCommand(program: Command): void {
  program
    .command('stop <name>')
    .description('stop a run: cancels the running stage (killing trainers/servers) and cleans up')
    .option('--no-wait', 'do not wait for the run to close')
    .action(
      cliAction(async (name: string, o: { wait: boolean }) => {
        const client = await connectClient();
        await requireRunning(client, name);
        const handle = client.workflow.getHandle(loopWorkflowId(name));
        await handle.signal(stopSignal, 'requested from the CLI');
        // A stopped loop completes; any other ending is fine too. Only an unreachable server is worth waiting out.
        if (o.wait)
          await withServerRetry(
            () =>
              handle.result().catch((err) => {
                if (isTransientServerError(err)) throw err;
              }),
            {
              what: `waiting for ${name} to stop`,
              giveUpAfterMs: serverRetryMs('wait'),
            },
          );
        console.log(`${name}: stopped`);
      }),
    );
}
