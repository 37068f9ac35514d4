// The debate society the tests run: 3 agents × 2 rounds on the MATH fixture, hence six trained roles.
import path from 'node:path';
import { CONFIGS } from './config';

export const DEBATE_ROLES = ['generator_0', 'generator_1', 'generator_2', 'critic_0', 'critic_1', 'critic_2'];

const TASKS = path.join(CONFIGS, 'tasks/debate/math.jsonl');

/** The `recipe:` section: 8 problems, 2 training debates each. */
export const debateTestRecipe = () => ({
  name: 'debate',
  dataset: 'math',
  evalTasks: TASKS,
  trainTasks: TASKS,
  agents: 3,
  rounds: 2,
  trainSamples: 2,
  limit: 8,
});
