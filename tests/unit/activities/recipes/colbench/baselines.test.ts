import { describe, expect, it } from 'vitest';
import { formatSft } from '../../../../../activities/data/formats';
import {
  conversationMessages,
  criticPreferencePairs,
  multiTurnDpoPairs,
  rejectionFinetuningExamples,
  trajectoryDpoRow,
  type ColbenchCodeTask,
  type ColbenchTrajectory,
} from '../../../../../activities/recipes/colbench';

const traj = (taskId: string, sampleIndex: number, final = `final of ${taskId}/${sampleIndex}`): ColbenchTrajectory => ({
  taskId,
  kind: 'code',
  sampleIndex,
  system: 'SYS',
  problem: `problem ${taskId}`,
  maxTurns: 10,
  dialogue: [
    { role: 'agent', content: `q ${sampleIndex}?` },
    { role: 'human', content: 'a. b.' },
    { role: 'agent', content: final, raw: `thoughts\nOUTPUT: ${final}` },
  ],
  answer: final,
  answeredWithMarker: true,
  agentTurns: 2,
  humanNoResponse: 0,
  usage: { agent: { promptTokens: 0, completionTokens: 0 }, human: { promptTokens: 0, completionTokens: 0 } },
});
const tasks: ColbenchCodeTask[] = ['a', 'b'].map((id) => ({
  id,
  kind: 'code',
  problem: `problem ${id}`,
  reference: `REF-${id}`,
  testCases: { t: 'f()' },
}));

describe('multi-turn DPO (trajectory-level) pairs', () => {
  const trajs = [traj('a', 0), traj('a', 1), traj('a', 2), traj('b', 0), traj('b', 1)];

  it('best-vs-rest (the seed): per task, the best sample if it reached 1.0 against every strictly lower one', () => {
    const pairs = multiTurnDpoPairs(trajs, [0.5, 1, 0.2, 0.9, 0.4]);
    expect(pairs.map((p) => [p.taskId, p.chosenSample, p.rejectedSample])).toEqual([
      ['a', 1, 0],
      ['a', 1, 2],
    ]);
    // Task b's best (0.9) did not succeed: no pairs unless the threshold is lowered.
    expect(multiTurnDpoPairs(trajs, [0.5, 1, 0.2, 0.9, 0.4], 0, { minChosenScore: 0.8 }).filter((p) => p.taskId === 'b')).toHaveLength(1);
    // Equal scores are never a pair.
    expect(multiTurnDpoPairs(trajs, [1, 1, 1, 1, 1])).toEqual([]);
  });

  it("all-pairs (the seed's frontend variant): every pair at least minGap apart", () => {
    const pairs = multiTurnDpoPairs(trajs, [0.5, 0.55, 0.2, 0.9, 0.85], 0, { mode: 'all-pairs' });
    expect(pairs.map((p) => [p.taskId, p.chosenSample, p.rejectedSample])).toEqual([
      ['a', 1, 2],
      ['a', 0, 2],
    ]);
    expect(multiTurnDpoPairs(trajs, [0.5, 0.55, 0.2, 0.9, 0.85], 3, { mode: 'all-pairs', minGap: 0.01, maxPairsPerTask: 1 })).toHaveLength(
      2,
    );
  });

  it('write whole conversations as implicit-prompt rows {chosen, rejected}', () => {
    const [p] = multiTurnDpoPairs(trajs, [0.5, 1, 0.2, 0.9, 0.4]);
    const row = trajectoryDpoRow(p);
    expect(Object.keys(row)).toEqual(['chosen', 'rejected']);
    expect(row.chosen).toEqual([
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'problem a' },
      { role: 'assistant', content: 'q 1?' },
      { role: 'user', content: 'a. b.' },
      { role: 'assistant', content: 'thoughts\nOUTPUT: final of a/1' },
    ]);
    expect(row.rejected[2]).toEqual({ role: 'assistant', content: 'q 0?' });
    expect(row.chosen.slice(0, 2)).toEqual(row.rejected.slice(0, 2));
    expect(conversationMessages(trajs[0])).toHaveLength(5);
  });

  it('do not depend on input order, and reject scores that do not line up', () => {
    const scores = [0.5, 1, 0.2, 0.9, 0.4];
    const order = [4, 2, 0, 3, 1];
    expect(
      multiTurnDpoPairs(
        order.map((i) => trajs[i]),
        order.map((i) => scores[i]),
      ),
    ).toEqual(multiTurnDpoPairs(trajs, scores));
    expect(() => multiTurnDpoPairs(trajs, [1])).toThrow('multiTurnDpoPairs: 1 scores for 5 trajectories');
    expect(() => multiTurnDpoPairs(trajs, [1, 1, NaN, 1, 1])).toThrow('score 2 (task a) is NaN');
  });
});

describe("critic training pairs (the seed's log-prob critic)", () => {
  it('put the reference in a leading system message only', () => {
    const [p] = criticPreferencePairs([traj('a', 0), traj('a', 1)], [0, 1], tasks);
    expect(p.chosen[0]).toEqual({ role: 'system', content: 'The final answer the person needs is:\nREF-a' });
    expect(p.chosen.slice(1)).toEqual(conversationMessages(traj('a', 1)));
    expect(() => criticPreferencePairs([traj('z', 0), traj('z', 1)], [0, 1], tasks)).toThrow('task z has no task');
  });
});

describe('rejection fine-tuning', () => {
  it('every agent turn of successful trajectories, as (agent view, raw turn)', () => {
    const ex = rejectionFinetuningExamples([traj('b', 0), traj('a', 1), traj('a', 0)], [1, 1, 0.5]);
    expect(ex.map((e) => [e.taskId, e.sampleIndex, e.turn])).toEqual([
      ['a', 1, 1],
      ['a', 1, 2],
      ['b', 0, 1],
      ['b', 0, 2],
    ]);
    expect(ex[1].messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(ex[1].completion).toBe('thoughts\nOUTPUT: final of a/1');
    expect(rejectionFinetuningExamples([traj('a', 0)], [0.7], { minScore: 0.5, maxPerTask: 1 })).toHaveLength(1);
  });

  it('share the SFT example shape, so the CoRal formatters write them for every trainer', () => {
    const ex = rejectionFinetuningExamples([traj('a', 1)], [1]);
    const [row] = formatSft(ex, 'openrlhf').map((l) => JSON.parse(l));
    expect(row.messages.at(-1)).toEqual({ role: 'assistant', content: 'q 1?' });
    expect(JSON.parse(formatSft(ex, 'trl')[1]).completion).toEqual([{ role: 'assistant', content: 'thoughts\nOUTPUT: final of a/1' }]);
  });
});
