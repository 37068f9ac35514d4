// The project's simulator as a `command` server (server.kind: command): the CoRal demo's policy read from each
// checkpoint's simulated-policy.json, so a checkpoint without one is a server that exits before it is ready.
import path from 'node:path';
import { nodeScriptArgv } from '../../activities/subprocess/node-script';
import { CONFIGS } from './config';

export function simulatorCommand(): string[] {
  const [node, args] = nodeScriptArgv('activities/serving/simulator-main.ts', [
    '--port',
    '{port}',
    '--model',
    '{model}',
    '--policy',
    'coral',
    '--policy-file',
    '{checkpoint}/simulated-policy.json',
    '--tasks',
    `${path.join(CONFIGS, 'tasks/coral-demo/mmlu_pro.jsonl')}:mmlu_pro`,
    '--host',
    '{host}',
  ]);
  return [node, ...args];
}
