// The reward TOA's search uses from a reward model behind the scoring API (activities/llm/scoring-api.ts, `api:
// reward`) is ArmoRM's `score` — the number the seed reads (oceanypt/TOA code/reward.py: `output.score`) — for a
// fixture of ArmoRM's output (fixtures/armorm-output.json: rewards, gating_output, score = Σ gating · (rewards @
// reward_transform_matrix), logits = score, as ArmoRM's modeling_custom.py returns them). A local server answers
// POST /pooling as vLLM's pooling API answers for a model whose head outputs those logits; the client is createChat.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LlmConfig } from '../../../../../contracts/config';
import { requestCacheFor } from '../../../../../activities/llm/cache';
import { createChat } from '../../../../../activities/llm/client';
import { newUsageCounter } from '../../../../../activities/llm/usage';
import { DEFAULT_TOA_PROMPTS } from '../../../../../activities/recipes/toa/prompts';
import { scoreResponse } from '../../../../../activities/recipes/toa/reward';
import type { TestServer } from '../../../../helpers/recording-server';
import { startVllmPoolingStandIn } from '../../../../helpers/vllm-pooling';

const armo = JSON.parse(readFileSync(path.join(__dirname, 'fixtures/armorm-output.json'), 'utf8')) as {
  rewards: number[][];
  gating_output: number[][];
  reward_transform_matrix: number[][];
  score: number[];
  logits: number[];
};
const LLM: LlmConfig = { requestTimeoutSeconds: 5, callRetries: 1, maxRetryDelaySeconds: 1, outageToleranceSeconds: 0 };
const task = { id: 'p1', kind: 'instruction' as const, instruction: 'Would you be able to help me with my studies?' };
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** vLLM's pooling answer (the stand-in of ../helpers/vllm-pooling.ts) carrying `data` for the one sequence. */
async function poolingServer(data: unknown) {
  const s = await startVllmPoolingStandIn(data);
  servers.push(s);
  const chat = createChat({
    endpoint: {
      baseUrl: `${s.url}/v1`,
      model: 'ArmoRM-Llama3-8B-v0.1',
      cacheId: `armorm-${servers.length}`,
      maxConcurrency: 1,
      api: 'reward',
    },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'armorm-')) }),
    llm: LLM,
    usage: newUsageCounter(),
    sleep: async () => {},
  });
  return { s, chat };
}
const score = (chat: Parameters<typeof scoreResponse>[0]) =>
  scoreResponse(chat, task, 'Sure! How can I help you?', {
    key: 'p1/s0/toa/p1',
    maxTokens: 1,
    parseRetries: 0,
    prompts: DEFAULT_TOA_PROMPTS,
  });

describe("the scoring API's reward is ArmoRM's score", () => {
  it('the fixture is ArmoRM-shaped: score = Σ gating · (rewards @ T), the same as logits, and no single objective', () => {
    const [r] = armo.rewards;
    const [g] = armo.gating_output;
    const T = armo.reward_transform_matrix;
    expect(r).toHaveLength(19);
    const adjusted = T[0].map((_, j) => r.reduce((a, ri, i) => a + ri * T[i][j], 0));
    expect(adjusted.reduce((a, x, j) => a + g[j] * x, 0)).toBeCloseTo(armo.score[0], 12);
    expect(armo.logits).toEqual(armo.score);
    expect(r.some((x) => Math.abs(x - armo.score[0]) < 1e-6)).toBe(false);
  });

  it('a sequence-pooled answer (the head’s logits, [score]) gives exactly the score, raw — not a sigmoid of it', async () => {
    const { s, chat } = await poolingServer(armo.logits);
    expect(await score(chat)).toEqual({ reward: armo.score[0], usage: { promptTokens: 37, completionTokens: 0 } });
    const body = s.received[0].body as { messages: unknown; use_activation: boolean; model: string };
    expect(body.use_activation).toBe(false);
    // Scored against the original question, as a [user, assistant] conversation (ArmoRM's chat template input).
    expect(body.messages).toEqual([
      { role: 'user', content: task.instruction },
      { role: 'assistant', content: 'Sure! How can I help you?' },
    ]);
  });

  it("a token-pooled answer: the last token's value, the sequence's score", async () => {
    const { chat } = await poolingServer([[0.01], [0.2], [armo.score[0]]]);
    expect(await score(chat)).toMatchObject({ reward: armo.score[0] });
  });

  it('an answer of the 19 objectives is refused, never read as one of them', async () => {
    const { chat } = await poolingServer(armo.rewards[0]);
    await expect(score(chat)).rejects.toThrow(/not one finite reward/);
  });
});
