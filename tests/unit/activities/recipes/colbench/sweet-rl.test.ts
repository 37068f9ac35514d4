import { describe, expect, it } from 'vitest';
import type { Chat, ChatCall } from '../../../../../activities/llm/types';
import { formatPreferences } from '../../../../../activities/data/formats';
import {
  createColbenchSimulatedPolicy,
  CRITIC_SYSTEM_PROMPT,
  DEFAULT_COLBENCH_PROMPTS,
  logProbCritic,
  pairsFromRanking,
  parseCriticScores,
  rankCandidates,
  runColbenchEpisode,
  sampleCandidates,
  stepDpoRow,
  turnStates,
  type ColbenchCodeTask,
  type ColbenchTrajectory,
  type RankedState,
  type TurnState,
} from '../../../../../activities/recipes/colbench';
import { criticContext } from '../../../../../activities/recipes/colbench/baselines';
import { learnedCritic } from '../../../../../activities/recipes/colbench/critic';
import { backendTasks, codeDecoding, humanDecoding, scriptedChat, simulatedChat } from '../../../../helpers/colbench';

const task: ColbenchCodeTask = {
  id: 'fee',
  kind: 'code',
  problem: 'I need a fee function.',
  reference: 'def fee(age):\n    return 45 if age < 18 else 120\n',
  testCases: { a: 'fee(1)' },
};

const trajectory = (taskId: string, sampleIndex: number, agentTurns: number): ColbenchTrajectory => {
  const dialogue: ColbenchTrajectory['dialogue'] = [];
  for (let t = 1; t <= agentTurns; t++) {
    dialogue.push({ role: 'agent', content: `${taskId} q${t}?`, ...(t === 2 ? { raw: `thinking\nOUTPUT: ${taskId} q${t}?` } : {}) });
    if (t < agentTurns) dialogue.push({ role: 'human', content: `${taskId} a${t}. ok.` });
  }
  return {
    taskId,
    kind: 'code',
    sampleIndex,
    system: 'SYS',
    problem: `problem of ${taskId}`,
    maxTurns: 10,
    dialogue,
    answer: 'x',
    answeredWithMarker: true,
    agentTurns,
    humanNoResponse: 0,
    usage: { agent: { promptTokens: 0, completionTokens: 0 }, human: { promptTokens: 0, completionTokens: 0 } },
  };
};
const tasksFor = (...ids: string[]): ColbenchCodeTask[] =>
  ids.map((id) => ({
    id,
    kind: 'code',
    problem: `problem of ${id}`,
    reference: `def ${id}(): return "SECRET-${id}"`,
    testCases: { a: `${id}()` },
  }));

describe('SWEET-RL turn states', () => {
  it('make every agent turn a state: the dialogue before it as the agent saw it, the reference on the side', () => {
    const states = turnStates([trajectory('a', 0, 3)], tasksFor('a'));
    expect(states.map((s) => s.id)).toEqual(['a/s0/t1', 'a/s0/t2', 'a/s0/t3']);
    expect(states[0].messages).toEqual([
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'problem of a' },
    ]);
    expect(states[2].messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    // Earlier turns appear as the agent saw them (visible text); the state's own turn is the raw completion.
    expect(states[2].messages[4]).toEqual({ role: 'assistant', content: 'a q2?' });
    expect(states[1].original).toBe('thinking\nOUTPUT: a q2?');
    expect(states[2].reference).toBe('def a(): return "SECRET-a"');
    for (const s of states) expect(JSON.stringify(s.messages)).not.toContain('SECRET');
  });

  it('take the first fraction in (sample, task) order — sample 0 of every task first — rounded up', () => {
    const trajs = [trajectory('b', 1, 1), trajectory('a', 1, 1), trajectory('b', 0, 1), trajectory('a', 0, 1), trajectory('c', 0, 1)];
    const tasks = tasksFor('a', 'b', 'c');
    expect(turnStates(trajs, tasks, { fraction: 0.5 }).map((s) => s.id)).toEqual(['a/s0/t1', 'b/s0/t1', 'c/s0/t1']);
    expect(turnStates(trajs, tasks, { fraction: 0.1 }).map((s) => s.id)).toEqual(['a/s0/t1']);
    expect(turnStates(trajs, tasks)).toHaveLength(5);
    expect(() => turnStates(trajs, tasks, { fraction: 0 })).toThrow('fraction must be in (0, 1]');
    expect(() => turnStates(trajs, tasksFor('a'))).toThrow('trajectory of task b (sample 0) has no task');
  });

  it('rebuild exactly the requests the agent sent during the episode', async () => {
    const tasks = backendTasks().slice(0, 3);
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 0.5 });
    for (const t of tasks) {
      const agent = simulatedChat(policy);
      const r = await runColbenchEpisode({
        task: t,
        kind: 'code',
        prompts: DEFAULT_COLBENCH_PROMPTS.code,
        agent,
        human: simulatedChat(policy),
        agentDecoding: codeDecoding,
        humanDecoding,
        sampleIndex: 0,
        seed: 3,
      });
      expect(turnStates([r], tasks).map((s) => s.messages)).toEqual(agent.calls.map((c) => c.messages));
    }
  });
});

describe('SWEET-RL candidates and ranking', () => {
  const [state] = turnStates([trajectory('fee', 0, 1)], [task]);

  it('sample n candidates in one request with one sampleKey per state', async () => {
    const agent = scriptedChat([['c1', 'c2', 'c3', 'c4']]);
    const c = await sampleCandidates(state, agent, 4, { temperature: 1, maxTokens: 64 });
    expect(c.texts).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(agent.calls).toHaveLength(1);
    expect(agent.calls[0]).toMatchObject({ n: 4, sampleKey: 'bon/fee/s0/t1', messages: state.messages });
    expect(typeof agent.calls[0].decoding.seed).toBe('number');
    await expect(sampleCandidates(state, scriptedChat([['only']]), 2, { temperature: 1, maxTokens: 8 })).rejects.toThrow(
      'asked for 2 candidates for state fee/s0/t1, got 1',
    );
    await expect(sampleCandidates(state, agent, 1, { temperature: 1, maxTokens: 8 })).rejects.toThrow('n must be an integer ≥ 2');
  });

  it('show the critic the reference and all candidates in a seeded order, and map its scores back', async () => {
    const candidates = ['ask about age?', 'ask about weather?', 'answer wrong', 'answer right'];
    // The critic reads the candidates in the order shown and scores them by content.
    const value: Record<string, number> = { 'ask about age?': 8, 'ask about weather?': 3, 'answer wrong': 1, 'answer right': 10 };
    const calls: ChatCall[] = [];
    const critic: Chat = async (call) => {
      calls.push(call);
      const blocks = (call.messages[1].content as string).split(/### Candidate (\d+)\n/).slice(1);
      const lines: string[] = [];
      for (let i = 0; i < blocks.length; i += 2) lines.push(`Candidate ${blocks[i]}: ${value[blocks[i + 1].split('\n\n')[0].trim()]}`);
      return { texts: [lines.join('\n')], finishReasons: ['stop'], usage: { promptTokens: 1, completionTokens: 1 }, cached: false };
    };
    const r = await rankCandidates(state, candidates, critic, { prompts: DEFAULT_COLBENCH_PROMPTS.code });
    // Shown in a shuffled order, yet every score lands on its own candidate.
    const shown = [...(calls[0].messages[1].content as string).matchAll(/### Candidate \d+\n(.*)/g)].map((m) => m[1]);
    expect(shown).not.toEqual(candidates);
    expect(calls[0].messages[0].content).toBe(CRITIC_SYSTEM_PROMPT);
    expect(calls[0].messages[1].content).toContain(task.reference);
    expect(calls[0].sampleKey).toBe('critic/fee/s0/t1');
    expect(r.ranked.map((c) => [c.text, c.score])).toEqual([
      ['answer right', 10],
      ['ask about age?', 8],
      ['ask about weather?', 3],
      ['answer wrong', 1],
    ]);
    expect(r.unscored).toBe(0);
  });

  it('leave out candidates the critic gave no score, never inventing one', async () => {
    const r = await rankCandidates(state, ['a', 'b', 'c'], scriptedChat(['Candidate 1: 4\nCandidate 9: 7']), {
      prompts: DEFAULT_COLBENCH_PROMPTS.code,
      scorer: undefined,
    });
    expect(r.ranked.length + r.unscored).toBe(3);
    expect(r.ranked).toHaveLength(1);
    expect(r.criticReply).toBe('Candidate 1: 4\nCandidate 9: 7');
  });

  it("accept the seed's log-prob advantage as a scorer: critic log-prob minus policy log-prob", async () => {
    const scorer = logProbCritic({
      critic: async (_s: TurnState, c: string) => ({ a: -1, b: -2, c: -0.5 })[c]!,
      policy: async (_s: TurnState, c: string) => ({ a: -1.5, b: -1, c: -0.4 })[c]!,
    });
    const r = await rankCandidates(state, ['a', 'b', 'c'], undefined, { scorer });
    expect(r.ranked.map((c) => c.text)).toEqual(['a', 'c', 'b']);
    expect(r.ranked[0].score).toBeCloseTo(0.5);
    await expect(rankCandidates(state, ['a'], undefined)).rejects.toThrow('give a critic Chat and opts.prompts, or opts.scorer');
  });
});

describe('the learned critic (the seed: critic mean log-prob minus policy mean log-prob)', () => {
  const [state] = turnStates([trajectory('fee', 0, 2)], [task]).slice(-1);
  it('asks the critic with the reference in front and the policy with what it saw, and ranks by the difference', async () => {
    const asked: Record<'critic' | 'policy', ChatCall[]> = { critic: [], policy: [] };
    const logProbs = (who: 'critic' | 'policy', table: Record<string, number>): Chat =>
      Object.assign(
        async (c: ChatCall) => {
          asked[who].push(c);
          return {
            texts: [String(table[String(c.messages.at(-1)!.content)])],
            finishReasons: ['stop'],
            usage: { promptTokens: 3, completionTokens: 0 },
            cached: false,
          };
        },
        { api: 'logprob' as const },
      );
    const scorer = learnedCritic({
      critic: logProbs('critic', { ask: -0.2, answer: -3, other: -1 }),
      policy: logProbs('policy', { ask: -1, answer: -1, other: -0.5 }),
    });
    const r = await rankCandidates(state, ['answer', 'ask', 'other'], undefined, { scorer });
    expect(r.ranked.map((c) => [c.text, c.score])).toEqual([
      ['ask', 0.8],
      ['other', -0.5],
      ['answer', -2],
    ]);
    for (const c of asked.critic) {
      expect(c.messages[0]).toEqual({ role: 'system', content: criticContext(state.reference) });
      expect(c.messages.slice(1, -1)).toEqual(state.messages);
    }
    for (const c of asked.policy) {
      expect(c.messages.slice(0, -1)).toEqual(state.messages);
      expect(JSON.stringify(c.messages)).not.toContain(state.reference.trim());
    }
    expect(asked.critic.map((c) => c.messages.at(-1))).toEqual(
      ['answer', 'ask', 'other'].map((content) => ({ role: 'assistant', content })),
    );
  });

  it('fails loudly on a log-prob that is not a number, never ranking on it', async () => {
    const broken: Chat = async () => ({
      texts: ['NaN'],
      finishReasons: ['stop'],
      usage: { promptTokens: 0, completionTokens: 0 },
      cached: false,
    });
    const scorer = learnedCritic({ critic: broken, policy: broken });
    await expect(rankCandidates(state, ['a', 'b'], undefined, { scorer })).rejects.toThrow(/critic log-prob for state .* is "NaN"/);
  });
});

describe('critic reply parsing', () => {
  it.each([
    ['Candidate 1: 7\nCandidate 2: 3\nCandidate 3: 9.5', [7, 3, 9.5]],
    ['**Candidate 1** - 7/10\n**Candidate 2**: 2/10\n**Candidate 3** = 5', [7, 2, 5]],
    ['candidate #2: 4\ncandidate #1: 6', [6, 4, null]],
    ['Candidate 1: Score: 8\nCandidate 2 score 1\nCandidate 3: 0', [8, 1, 0]],
    ['{"scores": [1, 2, 3]}', [1, 2, 3]],
    ['[4, 5, 6]', [4, 5, 6]],
    ['1: 3\n2. 8\n3) 5/10', [3, 8, 5]],
    ['Candidate 1: 5\nCandidate 1: 9\nCandidate 4: 2', [5, null, null]],
    ['I cannot decide.', [null, null, null]],
    ['[1, 2]', [null, null, null]],
  ] as const)('%j', (reply, expected) => {
    expect(parseCriticScores(reply, 3)).toEqual(expected);
  });
});

describe('SWEET-RL step pairs', () => {
  const rankedState = (id: string, scores: number[]): RankedState => {
    const [state] = turnStates([trajectory(id, 0, 1)], tasksFor(id));
    return {
      state,
      unscored: 0,
      ranked: scores.map((score, index) => ({ text: `${id}-cand-${index}`, score, index })).sort((a, b) => b.score - a.score),
    };
  };

  it('draw each pair from the top half and the bottom half; the higher score is chosen', () => {
    const r = rankedState('a', [9, 8, 7, 6, 5, 4, 3, 2]);
    const pairs = pairsFromRanking([r], 50, 1);
    expect(pairs).toHaveLength(50);
    const top = new Set(['a-cand-0', 'a-cand-1', 'a-cand-2', 'a-cand-3']);
    for (const p of pairs) {
      expect(top.has(p.chosen)).toBe(true);
      expect(top.has(p.rejected)).toBe(false);
      expect(p.chosenScore).toBeGreaterThan(p.rejectedScore);
    }
    // Uniform draws cover both halves.
    expect(new Set(pairs.map((p) => p.chosen)).size).toBe(4);
    expect(new Set(pairs.map((p) => p.rejected)).size).toBe(4);
  });

  it('give pairsPerTurn pairs per state, skip ties, put the odd middle one in the bottom half, skip states with < 2 candidates', () => {
    const pairs = pairsFromRanking(
      [rankedState('a', [5, 4, 3, 2]), rankedState('b', [1, 1, 1, 1]), rankedState('c', [7]), rankedState('d', [3, 2, 1])],
      4,
      0,
    );
    expect(pairs.filter((p) => p.taskId === 'a')).toHaveLength(4);
    expect(pairs.filter((p) => p.taskId === 'b' || p.taskId === 'c')).toHaveLength(0);
    for (const p of pairs.filter((x) => x.taskId === 'd')) expect(p.chosen).toBe('d-cand-0');
  });

  it('are deterministic in the seed and independent of the input order', () => {
    const rs = [rankedState('a', [5, 4, 3, 2, 1, 0]), rankedState('b', [9, 7, 5, 3])];
    const one = pairsFromRanking(rs, 4, 11);
    expect(pairsFromRanking([...rs].reverse(), 4, 11)).toEqual(one);
    expect(pairsFromRanking(rs, 4, 12)).not.toEqual(one);
  });

  it('write OpenRLHF rows whose prompt is the state the agent saw — never the reference', async () => {
    const tasks = backendTasks().slice(0, 4);
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 0.6 });
    const trajs = [];
    for (const t of tasks)
      for (const sampleIndex of [0, 1])
        trajs.push(
          await runColbenchEpisode({
            task: t,
            kind: 'code',
            prompts: DEFAULT_COLBENCH_PROMPTS.code,
            agent: simulatedChat(policy),
            human: simulatedChat(policy),
            agentDecoding: codeDecoding,
            humanDecoding,
            sampleIndex,
            seed: 5,
          }),
        );
    const states = turnStates(trajs, tasks);
    const agent = simulatedChat(policy);
    const critic = simulatedChat(policy);
    const ranked = [];
    for (const s of states) {
      const c = await sampleCandidates(s, agent, 6, { temperature: 1, maxTokens: 256 });
      ranked.push(await rankCandidates(s, c.texts, critic, { prompts: DEFAULT_COLBENCH_PROMPTS.code }));
    }
    expect(ranked.every((r) => r.unscored === 0)).toBe(true);
    // The critic saw the reference.
    expect(critic.calls.every((c, i) => JSON.stringify(c.messages).includes(JSON.stringify(states[i].reference).slice(1, -1)))).toBe(true);
    const pairs = pairsFromRanking(ranked, 4, 42);
    expect(pairs.length).toBeGreaterThan(states.length);
    for (const p of pairs) {
      const row = stepDpoRow(p);
      expect(Object.keys(row)).toEqual(['prompt', 'chosen', 'rejected']);
      expect(row.chosen).toEqual([{ role: 'assistant', content: p.chosen }]);
      expect(row.rejected).toEqual([{ role: 'assistant', content: p.rejected }]);
      expect(row.prompt[0].role).toBe('system');
      const reference = tasks.find((t) => t.id === p.taskId)!.reference;
      expect(JSON.stringify(row.prompt)).not.toContain(JSON.stringify(reference).slice(1, -1));
      expect(JSON.stringify(row.prompt)).not.toContain('Hidden information');
    }
    // Same shape as CoRal's preference pairs: its formatter writes them (OpenRLHF rows are identical to stepDpoRow).
    expect(formatPreferences(pairs, 'openrlhf').map((l) => JSON.parse(l))).toEqual(pairs.map(stepDpoRow));
  });
});
