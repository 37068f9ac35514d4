// What LLM calls cost per model role (activities/llm/spend.ts): tokens always; dollars at the price of the role's
// endpoint (an external role's own, the external server's for the roles it plays), nothing for a served role.
import { describe, expect, it } from 'vitest';
import { newUsageCounter } from '../../../../activities/llm/usage';
import { rolePrices, spendByRole } from '../../../../activities/llm/spend';
import { recipeOf } from '../../../../activities/recipes/runtime';
import { testConfig, tempStateDir } from '../../../helpers/config';

const used = (promptTokens: number, completionTokens: number) => ({ ...newUsageCounter(), calls: 1, promptTokens, completionTokens });

describe('spend per role', () => {
  it('prices external roles at their endpoint, the served ones at nothing', () => {
    const config = testConfig(tempStateDir(), (c) => {
      c.models = {
        extractor: { kind: 'external', endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'x', price: { input: 3, output: 15 } } },
      };
    });
    const roles = recipeOf(config).roles(config.recipe);
    expect(rolePrices(config, roles)).toEqual({ agent: undefined, extractor: { input: 3, output: 15 } });
    const spend = spendByRole({ agent: used(1000, 500), extractor: used(2_000_000, 100_000), idle: newUsageCounter() }, config, roles);
    expect(spend).toEqual({ agent: { tokens: 1500, usd: 0 }, extractor: { tokens: 2_100_000, usd: 6 + 1.5 } });
  });

  it('with an external server, the roles it plays cost its price', () => {
    const config = testConfig(tempStateDir(), (c) => {
      c.server = { kind: 'external', endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', price: { input: 1, output: 2 } } };
      delete c.agents;
    });
    expect(spendByRole({ agent: used(1_000_000, 1_000_000) }, config, recipeOf(config).roles(config.recipe)).agent).toEqual({
      tokens: 2_000_000,
      usd: 3,
    });
  });
});
