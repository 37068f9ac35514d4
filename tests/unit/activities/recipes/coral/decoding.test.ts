// CoRal's sampling defaults follow `compat` (decoding.ts): the seed samples every turn at 0.2 with top-p 1; fixed
// evaluates greedily and samples training trees at 0.8 / top-p 0.9. A value in the config always wins.
import { describe, expect, it } from 'vitest';
import { coralRecipeSchema } from '../../../../../activities/recipes/coral/config';
import { agentDecoding } from '../../../../../activities/recipes/coral/decoding';

const cfg = (extra: Record<string, unknown>) => coralRecipeSchema.parse({ name: 'coral', dataset: 'math', evalTasks: 'x.jsonl', ...extra });

describe('CoRal sampling defaults', () => {
  it('fixed: greedy evaluation, diverse training trees', () => {
    expect(agentDecoding(cfg({}), 'eval')).toMatchObject({ temperature: 0, topP: 0.9 });
    expect(agentDecoding(cfg({}), 'train')).toMatchObject({ temperature: 0.8, topP: 0.9 });
  });

  it("seed: the seed's sampling_temp 0.2 everywhere, no top-p", () => {
    expect(agentDecoding(cfg({ compat: 'seed' }), 'eval')).toMatchObject({ temperature: 0.2, topP: 1 });
    expect(agentDecoding(cfg({ compat: 'seed' }), 'train')).toMatchObject({ temperature: 0.2, topP: 1 });
  });

  it('an explicit field wins in both modes', () => {
    const c = cfg({ compat: 'seed', evalTemperature: 0, trainTemperature: 1, topP: 0.5, maxTokens: 64 });
    expect(agentDecoding(c, 'eval')).toEqual({ temperature: 0, topP: 0.5, maxTokens: 64 });
    expect(agentDecoding(c, 'train')).toEqual({ temperature: 1, topP: 0.5, maxTokens: 64 });
  });
});
