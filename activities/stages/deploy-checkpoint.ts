// The deploy stage: serves the iteration's checkpoints — one server per distinct checkpoint the served model roles
// play (roles that share a checkpoint share its server; serving/checkpoint-servers.ts starts, checks and probes
// each) — and records which endpoint plays each role.
import { Context } from '@temporalio/activity';
import { setMaxListeners } from 'node:events';
import type { StageContext } from '../../contracts/activities';
import type { EndpointRef } from '../../contracts/endpoint';
import type { DeployResult } from '../../contracts/run';
import { externalEndpointRef } from '../../contracts/endpoint';
import { modelRoles, primaryRole } from '../llm/roles';
import { writeStageManifest } from '../manifest';
import { recipeOf } from '../recipes/runtime';
import { serveCheckpoint, serverKey, stopIterationServers, type Served } from '../serving/checkpoint-servers';
import { servedRecipe } from './served-recipe';

export async function deployCheckpoint(
  input: StageContext & { checkpoint: string; checkpoints?: Record<string, string> },
): Promise<DeployResult> {
  const { config, checkpoint } = input;
  const s = config.server;
  setMaxListeners(0, Context.current().cancellationSignal); // servers start and probe in parallel, each listening
  // Iterations deployed before model roles: one server for every role.
  const roles = input.checkpoints ? modelRoles(config, recipeOf(config).roles(config.recipe), checkpoint, input.checkpoints) : undefined;
  const primary = roles ? primaryRole(roles) : undefined;
  const servedRoles = roles ? Object.keys(roles).filter((r) => roles[r].kind !== 'external') : [];
  const checkpointOf = (role: string) => (roles![role] as { checkpoint: string }).checkpoint;
  // The primary role's checkpoint (the loop's) first; then every other distinct checkpoint a served role plays.
  const primaryCheckpoint = primary && roles![primary].kind !== 'external' ? checkpointOf(primary) : checkpoint;
  const distinct = [...new Set([primaryCheckpoint, ...servedRoles.map(checkpointOf)])];

  let servers: Map<string, Served> | undefined;
  let external: EndpointRef | undefined;
  if (s.kind === 'external') external = externalEndpointRef(s.endpoint);
  else if (!roles || servedRoles.length) {
    const keys = distinct.map((c) => (c === primaryCheckpoint ? '' : serverKey(c)));
    const recipe = servedRecipe(config);
    const started = await Promise.allSettled(distinct.map((c, i) => serveCheckpoint(input, c, keys[i], recipe)));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) {
      // The workflow stops only what a finished deploy reports; the servers that did start must not outlive this
      // attempt (holding ports and GPU memory while the run waits, and after it stops).
      await stopIterationServers(input);
      throw failed.reason;
    }
    servers = new Map(distinct.map((c, i) => [c, (started[i] as PromiseFulfilledResult<Served>).value]));
  }
  const servedEndpoint = (c: string) => external ?? servers!.get(c)!.endpoint;
  const deployedRoles = roles
    ? Object.fromEntries(
        Object.entries(roles).map(([role, r]) => [
          role,
          r.kind === 'external'
            ? { kind: r.kind, endpoint: externalEndpointRef(r.endpoint) }
            : { kind: r.kind, checkpoint: r.checkpoint, endpoint: servedEndpoint(r.checkpoint), probe: servers?.get(r.checkpoint)?.probe },
        ]),
      )
    : undefined;
  const main = servers?.get(primaryCheckpoint);
  const endpoint = primary && deployedRoles ? deployedRoles[primary].endpoint : (external ?? main!.endpoint);
  const manifest = await writeStageManifest(config, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'deploy',
    inputs: { checkpoint },
    params: {
      ...(input.checkpoints ? { checkpoints: input.checkpoints } : {}),
      server: s,
      agents: config.agents ?? null,
      ...(main
        ? {
            argv: main.argv,
            port: Number(new URL(main.model.baseUrl).port),
            logFile: main.logFile,
            reused: main.reused,
            servedFrom: main.dir,
            // Which GPUs served it (the host's --gpus pool), so an operator can tell what ran where.
            ...(main.gpus ? { gpus: main.gpus } : {}),
          }
        : {}),
    },
    outputs: {
      model: main?.model ?? endpoint,
      agents: endpoint,
      probe: main?.probe ?? null,
      ...(deployedRoles ? { roles: deployedRoles } : {}),
      ...(servers && servers.size > 1
        ? {
            servers: [...servers].map(([c, v]) => ({
              checkpoint: c,
              model: v.model,
              agents: v.endpoint,
              argv: v.argv,
              logFile: v.logFile,
              ...(v.gpus ? { gpus: v.gpus } : {}),
            })),
          }
        : {}),
    },
  });
  return {
    endpoint,
    ...(main ? { served: { endpoint: main.model, probe: main.probe }, serverId: String(main.pid) } : {}),
    manifest,
    ...(deployedRoles ? { roles: deployedRoles, primaryRole: primary } : {}),
  };
}
