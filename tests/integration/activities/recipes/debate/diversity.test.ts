// The multiagent-ft paper's diversity measure, embedding dissimilarity (mean over agent pairs of 1 − cosine of their
// replies' embeddings): hand-computed values, the per-round metric over records, and a debate run through the
// runtime against the simulator's /v1/embeddings route with the openai client.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { debateMetrics, type DebateRecord } from '../../../../../activities/recipes/debate';
import { debateRecipeSchema } from '../../../../../activities/recipes/debate/config';
import { cosine, meanPairwiseDissimilarity, withEmbeddingDissimilarity } from '../../../../../activities/recipes/debate/diversity';
import { debateRuntime } from '../../../../../activities/recipes/debate/runtime';
import { hashedEmbedding } from '../../../../../activities/serving/openai-compatible/routes/embeddings';
import { echoPolicy, startOpenAICompatibleServer } from '../../../../../activities/serving/openai-compatible-server';
import { CONFIGS } from '../../../../helpers/config';
import { scripted } from '../../../../helpers/debate';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A record of `replies[agent][round]` (answers and votes do not matter here). */
function record(replies: string[][]): DebateRecord {
  return {
    taskId: 't',
    sampleIndex: 0,
    agents: replies.map((rs) => ({
      messages: rs.flatMap((content) => [
        { role: 'user' as const, content: 'q' },
        { role: 'assistant' as const, content },
      ]),
      answers: rs.map(() => undefined),
    })),
    roundVotes: replies[0].map(() => ({ clusters: [] })),
    gold: '1',
    correct: false,
    usage: { promptTokens: 0, completionTokens: 0 },
  };
}

describe('embedding dissimilarity', () => {
  it('is the mean over agent pairs of 1 − cosine (hand-computed)', () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1, 12);
    // (1 − 0) + 2 × (1 − 1/√2), over 3 pairs
    expect(
      meanPairwiseDissimilarity([
        [1, 0],
        [0, 1],
        [1, 1],
      ]),
    ).toBeCloseTo((3 - Math.SQRT2) / 3, 12);
    expect(meanPairwiseDissimilarity([[3, 4]])).toBeUndefined();
  });

  it("is computed per round from each agent's reply and averaged over debates in the metrics", async () => {
    const vectors: Record<string, number[]> = { a: [1, 0], b: [0, 1], c: [1, 1], d: [-1, 0] };
    const embed = async (texts: string[]) => texts.map((t) => vectors[t]);
    // Round 0: a, b, c → (3 − √2)/3; round 1: all a → 0.
    const r1 = await withEmbeddingDissimilarity(
      record([
        ['a', 'a'],
        ['b', 'a'],
        ['c', 'a'],
      ]),
      embed,
    );
    expect(r1.embeddingDissimilarity?.[0]).toBeCloseTo((3 - Math.SQRT2) / 3, 12);
    expect(r1.embeddingDissimilarity?.[1]).toBe(0);
    // Round 0: a, d, a → pairs 2, 0, 2 → 4/3; round 1: a, b, a → 1, 0, 1 → 2/3.
    const r2 = await withEmbeddingDissimilarity(
      record([
        ['a', 'a'],
        ['d', 'b'],
        ['a', 'a'],
      ]),
      embed,
    );
    expect(r2.embeddingDissimilarity).toEqual([4 / 3, 2 / 3]);
    const m = debateMetrics([r1, r2, record([['a'], ['b']])], { dataset: 'math', compat: 'fixed' });
    expect(m.embedding_dissimilarity).toBeCloseTo((0 + 2 / 3) / 2, 12); // the last round; the record without it is left out
    expect(m.round_0_embedding_dissimilarity).toBeCloseTo(((3 - Math.SQRT2) / 3 + 4 / 3) / 2, 12);
    expect(m.round_1_embedding_dissimilarity).toBeCloseTo(1 / 3, 12);
    // A lone agent has no pairs; without an endpoint there is no metric.
    expect((await withEmbeddingDissimilarity(record([['a']]), embed)).embeddingDissimilarity).toBeUndefined();
    expect(debateMetrics([record([['a'], ['b']])], { dataset: 'math', compat: 'fixed' })).not.toHaveProperty('embedding_dissimilarity');
  });
});

describe("an evaluation debate with `diversity.embeddings` set (the simulator's /v1/embeddings)", () => {
  it("records each round's dissimilarity of the replies; training debates are not embedded", async () => {
    const sim = await startOpenAICompatibleServer({ modelName: 'embedder', policy: echoPolicy });
    closers.push(() => sim.close());
    const cfg = debateRecipeSchema.parse({
      name: 'debate',
      dataset: 'math',
      evalTasks: path.join(CONFIGS, 'tasks/debate/math.jsonl'),
      trainTasks: path.join(CONFIGS, 'tasks/debate/math.jsonl'),
      diversity: { embeddings: { baseUrl: `${sim.url}/v1`, model: 'embedder' } },
    });
    const script = { generator_0: ['1'], generator_1: ['2'], generator_2: ['1'], critic_0: ['1'], critic_1: ['1'], critic_2: ['1'] };
    const reply = (a: string) => (a === '1' ? 'halve it so one half remains \\boxed{1}' : 'double both sides twice \\boxed{2}');
    const runtime = debateRuntime(cfg, 7, 'trl');
    const run = async (split: 'eval' | 'train') =>
      (await runtime.runTask({ split, taskIndex: 0, sampleIndex: 0, chats: scripted(script, [], reply), services: {} })) as DebateRecord;
    const r = await run('eval');
    const [one, two] = [hashedEmbedding(reply('1')), hashedEmbedding(reply('2'))];
    // Round 0: two agents alike, one apart → (0 + 2 × (1 − cos)) / 3; round 1: all alike → 0.
    expect(r.embeddingDissimilarity?.[0]).toBeCloseTo((2 * (1 - cosine(one, two))) / 3, 12);
    expect(r.embeddingDissimilarity?.[0]).toBeGreaterThan(0.3);
    expect(r.embeddingDissimilarity?.[1]).toBeCloseTo(0, 12);
    const train = await run('train');
    expect(train.embeddingDissimilarity).toBeUndefined();
  });

  it('a bad embeddings request is one clear error', async () => {
    const sim = await startOpenAICompatibleServer({ modelName: 'embedder', policy: echoPolicy });
    closers.push(() => sim.close());
    const res = await fetch(`${sim.url}/v1/embeddings`, { method: 'POST', body: JSON.stringify({ model: 'embedder', input: 3 }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      '"input" must be a string or a non-empty array of strings',
    );
  });

  it('a bad `diversity.embeddings` field names itself', () => {
    const r = debateRecipeSchema.safeParse({
      name: 'debate',
      dataset: 'math',
      evalTasks: 'x.jsonl',
      diversity: { embeddings: { baseUrl: 'nope', model: 'm' } },
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({
      path: ['diversity', 'embeddings', 'baseUrl'],
      message: 'must be a URL such as http://127.0.0.1:8000/v1',
    });
  });
});
