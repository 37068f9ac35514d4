// How verl rolls out CollabLLM's online RL prompts (trainer: {kind: verl, method: grpo}; the adapter is
// activities/training/adapters/verl-grpo.ts): ./collabllm_to_verl.py turns the loop's multiturn rows into verl's
// prompt files, each row naming the agent loop and the interaction as verl-recipe's collabllm/process_dataset.py
// names them; the agent loop is verl-recipe's collabllm/collabllm_agent_loop.py, which forks the futures.
import { fileURLToPath } from 'node:url';
import type { OnlineRlRollout } from '../types';
import type { CollabllmRecipeConfig } from './config';

const CONVERTER = fileURLToPath(new URL('./collabllm_to_verl.py', import.meta.url));

export const collabVerlRollout = (cfg: CollabllmRecipeConfig): OnlineRlRollout => ({
  converter: { script: CONVERTER, args: ['--task-kind', cfg.task] },
  agentLoop: { name: 'collabllm_agent', target: 'recipe.collabllm.collabllm_agent_loop.CollabLLMAgentLoop' },
  interactionName: 'collabllm',
});
