// The budget as a data build's model calls meet it (activities/data/builder-models.ts → activities/llm/client.ts →
// budget-ledger.ts), inside a Temporal activity context: a call that would pass the budget never reaches the
// endpoint and fails as BudgetReached; an answer from the request cache is counted but never refused; the budget is
// the one in the config the attempt got (a `retry --set` raises it) and the price is the role's endpoint's.
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builderChats } from '../../../../activities/data/builder-models';
import { budgetSpender } from '../../../../activities/llm/budget-ledger';
import { externalEndpointRef } from '../../../../contracts/endpoint';
import { recipeOf } from '../../../../activities/recipes/runtime';
import type { RunningServer } from '../../../../activities/serving/openai-compatible-server';
import type { LoopConfig } from '../../../../contracts/config';
import type { BudgetLedgerInput } from '../../../../contracts/run';
import type { ChatOutput } from '../../../../activities/llm/types';
import { tempStateDir, testConfig } from '../../../helpers/config';
import { startCountingEndpoint } from '../../../helpers/endpoint';

let endpoint: RunningServer;
beforeAll(async () => {
  endpoint = await startCountingEndpoint();
});
afterAll(async () => {
  await endpoint?.close();
});

const ledger: BudgetLedgerInput = {
  run: 'my-run',
  spender: 'build-data',
  epoch: 0,
  before: { tokens: 0, usd: 0 },
  finished: { tokens: 0, usd: 0 },
};
const call = (q: string) => ({
  messages: [{ role: 'user' as const, content: `Question: ${q}? Answer with one letter.` }],
  decoding: { temperature: 0, maxTokens: 16 },
  sampleKey: 's0',
});

/** One attempt of a data build: its agent asked each question in turn, counted against the config's budget. */
async function attempt(config: LoopConfig, n: number, ...questions: string[]): Promise<Array<ChatOutput | ApplicationFailure>> {
  return new MockActivityEnvironment({ attempt: n, activityId: 'build-data-1' }).run(async () => {
    const input = { runName: 'budget-calls', iteration: 0, config, ledger };
    const server = config.server as Extract<LoopConfig['server'], { kind: 'external' }>;
    const declared = recipeOf(config).roles(config.recipe);
    const { chats } = builderChats({ ...input, agent: externalEndpointRef(server.endpoint) }, declared, await budgetSpender(input));
    const out: Array<ChatOutput | ApplicationFailure> = [];
    for (const q of questions) out.push(await chats.agent(call(q)).catch((e: ApplicationFailure) => e));
    return out;
  });
}

describe('a data build under a budget', () => {
  it('refuses the call that would pass it before sending it, counts cached answers (refused past it too), and reads the budget of each attempt', async () => {
    const stateDir = tempStateDir('budget-calls-');
    const withBudget = (budget: LoopConfig['budget']) =>
      testConfig(stateDir, (c) => {
        c.server = {
          kind: 'external',
          endpoint: { baseUrl: `${endpoint.url}/v1`, model: 'counted-model', maxConcurrency: 4, price: { input: 1, output: 1 } },
        };
        c.budget = budget;
      });
    const [first] = (await attempt(withBudget({ tokens: 1000 }), 1, 'What is 2+2')) as ChatOutput[];
    expect(first.cached).toBe(false);
    const paid = first.usage.promptTokens + first.usage.completionTokens;
    const sent = endpoint.stats().received;

    // The retry's budget has room for the first answer but not for another call's estimate (its max_tokens alone).
    const [again, err] = await attempt(withBudget({ tokens: paid + 15 }), 2, 'What is 2+2', 'What is 3+3');
    expect((again as ChatOutput).cached).toBe(true); // counted again from the cache: it fits
    expect(err).toBeInstanceOf(ApplicationFailure);
    const refused = err as ApplicationFailure;
    expect(refused.type).toBe('BudgetReached');
    expect(refused.nonRetryable).toBe(true);
    expect(refused.message).toMatch(
      new RegExp(
        `^budget reached: the run has spent ${paid} tokens of budget\\.tokens ${paid + 15} .*collab-loop retry my-run --set budget\\.tokens=N`,
      ),
    );
    expect(endpoint.stats().received).toBe(sent); // nothing was sent

    // A budget the cached answer alone would pass: refused too (status counts cached answers as spend).
    const [cachedOver] = await attempt(withBudget({ tokens: paid - 1 }), 5, 'What is 2+2');
    expect((cachedOver as ApplicationFailure).type).toBe('BudgetReached');

    // Priced at the endpoint's $1 per million tokens: a budget.usd below one call's estimate refuses it.
    const [dollars] = await attempt(withBudget({ usd: 1e-6 }), 3, 'What is 4+4');
    expect((dollars as ApplicationFailure).message).toMatch(/^budget reached: the run has spent \$0\.0000 of budget\.usd 0\.000001/);
    // Raised by a retry: the refused call goes through.
    const [raised] = await attempt(withBudget({ tokens: 100_000 }), 4, 'What is 3+3');
    expect((raised as ChatOutput).cached).toBe(false);
    expect(endpoint.stats().received).toBe(sent + 1);
  });
});
