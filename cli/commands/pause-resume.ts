// `collab-loop pause <name>` and `resume <name>`: one signal (contracts/messages.ts pauseSignal), set or cleared.
import type { Command } from 'commander';
import { loopWorkflowId, pauseSignal } from '../../contracts/messages';
import { connectClient } from '../connection';
import { requireRunning } from '../loop-workflow';
import { cliAction } from '../user-error';

export function pauseResumeCommands(program: Command): void {
  for (const [cmd, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const)
    program
      .command(`${cmd} <name>`)
      .description(paused ? 'pause at the next stage boundary' : 'resume a paused run')
      .action(
        cliAction(async (name: string) => {
          const client = await connectClient();
          await requireRunning(client, name);
          await client.workflow.getHandle(loopWorkflowId(name)).signal(pauseSignal, paused);
          console.log(`${name}: ${paused ? 'pausing at the next stage boundary' : 'resumed'}`);
        }),
      );
}
