// `collab-loop retry <name>`: re-run the stage that needs attention, through the iteration's update, with --set changes.
import { type Command, Option } from 'commander';
import { iterationConfigQuery, iterationWorkflowId, retryStageUpdate } from '../../contracts/messages';
import { STAGES, type Stage } from '../../contracts/run';
import { trainedCheckpoint } from '../format';
import { collect } from '../option-values';
import { getRunStatusRetrying } from '../status-retrying';
import { connectClientRetrying } from '../server-retry';
import { cliAction, UserError } from '../user-error';
import { WorkerBusyError } from '../worker-busy';

export function retryCommand(program: Command): void {
  program
    .command('retry <name>')
    .description('re-run the stage that needs attention (or an earlier one), optionally with changed config')
    .addOption(new Option('--stage <stage>', 'stage to re-run from').choices([...STAGES]))
    .option('--set <key=value>', 'override a config field for the retry (repeatable)', collect, [])
    .action(
      cliAction(async (name: string, o: { stage?: Stage; set: string[] }) => {
        const client = await connectClientRetrying('status');
        const s = await getRunStatusRetrying(client, name);
        if (s.unanswered && s.workflowStatus === 'RUNNING') throw new WorkerBusyError(s.unanswered.reason); // a retry is the worker's to take
        if (s.workflowStatus !== 'RUNNING' || !s.iteration?.attention)
          throw new UserError(
            `run "${name}" has no stage that needs attention (status: ${s.workflowStatus.toLowerCase()}${s.iteration ? `, stage ${s.iteration.stage}` : ''})`,
          );
        const child = client.workflow.getHandle(iterationWorkflowId(name, s.loop.iteration));
        const trainedFrom = trainedCheckpoint(s.loop.done);
        // The config schema (every recipe) is loaded only for a --set.
        const config = o.set.length
          ? (await import('../../configs/load')).applyOverridesToConfig(await child.query(iterationConfigQuery), o.set, { trainedFrom })
          : undefined;
        try {
          const msg = await child.executeUpdate(retryStageUpdate, {
            args: [{ stage: o.stage, config, ...(config ? { changes: o.set } : {}) }],
          });
          console.log(`${name}: ${msg}`);
        } catch (err) {
          throw new UserError(
            `retry rejected: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
          );
        }
      }),
    );
}
