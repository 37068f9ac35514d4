// The SIMULATED policy stands in for model servers (no GPU/weights here); these tests pin the properties the
// dry-run server, the request cache and the recipe tests rely on.
import { describe, expect, it } from 'vitest';
import type { SimulatedRequest } from '../../../../../activities/recipes/coral/simulated-policy';
import {
  ANSWER_MARKER,
  agentMessages,
  CODE_AGENT_SYSTEM_PROMPT,
  codeHumanMessages,
  codeMutations,
  createColbenchSimulatedPolicy,
  criticMessages,
  DEFAULT_COLBENCH_PROMPTS,
  extractHtml,
  HTML_AGENT_SEED_SYSTEM_PROMPT,
  HTML_AGENT_SYSTEM_PROMPT,
  htmlHumanMessages,
  pageMutations,
  parseCriticScores,
  readAgentReply,
  runColbenchEpisode,
  scoreCodeTrajectory,
  scoreHtmlTrajectory,
} from '../../../../../activities/recipes/colbench';
import {
  backendTasks,
  codeDecoding,
  fakeRender,
  fakeSimilarity,
  htmlTasks,
  humanDecoding,
  memoryImages,
  simulatedChat,
  textualRunCodeTests,
} from '../../../../helpers/colbench';

const tasks = backendTasks();
const pages = htmlTasks();
const request = (messages: SimulatedRequest['messages'], over: Partial<SimulatedRequest> = {}): SimulatedRequest => ({
  model: 'm',
  n: 1,
  seed: 3,
  temperature: 1,
  messages,
  ...over,
});
const afterQuestions = (problem: string, asked: number, system = CODE_AGENT_SYSTEM_PROMPT) =>
  agentMessages(
    system,
    problem,
    Array.from({ length: asked }, (_, i) => [
      { role: 'agent' as const, content: `q${i}?` },
      { role: 'human' as const, content: `a${i}. ok.` },
    ]).flat(),
  );

describe('simulated ColBench policy', () => {
  it('answers the same request the same way and gives n different candidates', () => {
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 0.5 });
    const req = request(afterQuestions(tasks[0].problem, 1), { n: 6 });
    const a = policy(req);
    expect(policy(structuredClone(req))).toEqual(a);
    expect(new Set(a.texts).size).toBeGreaterThanOrEqual(4);
    expect(a.completionTokens).toHaveLength(6);
    expect(a.promptTokens).toBeGreaterThan(0);
  });

  it('greedy decoding ignores the seed; sampling depends on it', () => {
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 0.5 });
    const greedy = tasks.map(
      (t) =>
        policy(request(afterQuestions(t.problem, 1), { temperature: 0, seed: 1 })).texts[0] ===
        policy(request(afterQuestions(t.problem, 1), { temperature: 0, seed: 2 })).texts[0],
    );
    expect(greedy.every(Boolean)).toBe(true);
    const sampled = tasks.map(
      (t) =>
        policy(request(afterQuestions(t.problem, 1), { seed: 1 })).texts[0] ===
        policy(request(afterQuestions(t.problem, 1), { seed: 2 })).texts[0],
    );
    expect(sampled.some((same) => !same)).toBe(true);
  });

  it('code agent: asks first, answers with the marker after one to three questions', () => {
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 1 });
    for (const t of tasks) {
      for (const seed of [1, 2, 3]) {
        const first = policy(request(afterQuestions(t.problem, 0), { seed })).texts[0];
        expect(first).not.toContain(ANSWER_MARKER);
        expect(first).toMatch(/\?$/);
        const late = readAgentReply(policy(request(afterQuestions(t.problem, 3), { seed })).texts[0]);
        expect(late.marker).toBe(true);
        expect(late.afterMarker).toBe(t.reference.trim());
      }
    }
  });

  it('code agent: higher skill gives more exact-reference answers over many seeds', () => {
    const exact = (skill: number) => {
      const policy = createColbenchSimulatedPolicy({ tasks, skill });
      let n = 0;
      for (const t of tasks)
        for (let seed = 0; seed < 20; seed++)
          if (readAgentReply(policy(request(afterQuestions(t.problem, 3), { seed })).texts[0]).afterMarker === t.reference.trim()) n++;
      return n / (tasks.length * 20);
    };
    const [low, mid, high] = [exact(0), exact(0.5), exact(0.9)];
    expect(low).toBe(0);
    expect(mid).toBeGreaterThan(0.35);
    expect(mid).toBeLessThan(0.65);
    expect(high).toBeGreaterThan(mid + 0.2);
  });

  it('buggy variants differ from the reference by one constant or comparison', () => {
    for (const t of tasks) {
      const variants = codeMutations(t.reference);
      expect(variants.length, t.id).toBeGreaterThan(0);
      for (const v of variants) {
        expect(v).not.toBe(t.reference);
        expect(v.split('\n').filter((line, i) => line !== t.reference.split('\n')[i])).toHaveLength(1);
      }
    }
    expect(codeMutations('def f(x):\n    return x >= 10\n')).toEqual(['def f(x):\n    return x >= 12\n', 'def f(x):\n    return x > 10\n']);
  });

  it.each([
    ['fixed', HTML_AGENT_SYSTEM_PROMPT],
    ['seed', HTML_AGENT_SEED_SYSTEM_PROMPT],
  ])(
    'html agent (%s prompt): proposes a full page after OUTPUT:, the reference at skill 1, a degraded page at skill 0',
    (_compat, system) => {
      const expert = createColbenchSimulatedPolicy({ tasks: pages, skill: 1 });
      const novice = createColbenchSimulatedPolicy({ tasks: pages, skill: 0 });
      for (const p of pages) {
        expect(pageMutations(p.reference).length, p.id).toBeGreaterThanOrEqual(2);
        const good = readAgentReply(expert(request(afterQuestions(p.problem, 0, system))).texts[0]);
        expect(extractHtml(good.visible)).toBe(p.reference.trim());
        const bad = readAgentReply(novice(request(afterQuestions(p.problem, 2, system))).texts[0]);
        expect(bad.marker).toBe(true);
        expect(extractHtml(bad.visible)).not.toBe(p.reference.trim());
        expect(bad.visible).toMatch(/<html[\s\S]*<\/html>/);
      }
    },
  );

  it.each(['fixed', 'seed'] as const)(
    'code human (%s dialogue layout): two sentences quoting the part of the hidden reference the question is about',
    (compat) => {
      const policy = createColbenchSimulatedPolicy({ tasks, skill: 0.5 });
      const human = (problem: string, reference: string, question: string) =>
        codeHumanMessages(DEFAULT_COLBENCH_PROMPTS.code, compat, problem, reference, [{ role: 'agent', content: question }]);
      const fee = tasks.find((t) => t.id === 'cycling-club-fee')!;
      const reply = policy(request(human(fee.problem, fee.reference, 'Does the fee change for people who race?'), { temperature: 0 }))
        .texts[0];
      expect(reply.split(/(?<=\.)\s+/)).toHaveLength(2);
      expect(reply).toContain('when is_racing, fee += 35');
      for (const t of tasks) {
        const r = policy(request(human(t.problem, t.reference, 'Any thresholds?'), { temperature: 0 })).texts[0];
        expect(r.match(/[.!?](\s|$)/g)?.length, `${t.id}: ${r}`).toBe(2);
      }
    },
  );

  it.each([
    ['fixed', DEFAULT_COLBENCH_PROMPTS.html],
    ['seed', DEFAULT_COLBENCH_PROMPTS.htmlSeed],
  ] as const)(
    'html human (%s request): satisfied by an identical picture, asks for a draft when there is none, else names differences',
    async (compat, prompts) => {
      const policy = createColbenchSimulatedPolicy({ tasks: pages, skill: 0.5 });
      const human = (draft: Buffer | undefined, truth: Buffer) => htmlHumanMessages(prompts, compat, draft, truth);
      const truth = await fakeRender(pages[0].reference);
      expect(policy(request(human(truth, truth))).texts[0]).toContain('exactly like');
      expect(policy(request(human(undefined, truth))).texts[0]).toContain('cannot see a page yet');
      expect(policy(request(human(await fakeRender('<html>x</html>'), truth))).texts[0].split('. ')).toHaveLength(2);
    },
  );

  it('critic: scores the reference above a question above a wrong answer, on average', () => {
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 0.5 });
    const totals = [0, 0, 0];
    for (const t of tasks) {
      const wrong = `${ANSWER_MARKER}\n${codeMutations(t.reference)[0]}`;
      const reply = policy(
        request(
          criticMessages(
            DEFAULT_COLBENCH_PROMPTS.code,
            t.problem,
            t.reference,
            [],
            [wrong, 'What are the limits?', `${ANSWER_MARKER}\n${t.reference}`],
          ),
          {
            temperature: 0,
          },
        ),
      ).texts[0];
      const scores = parseCriticScores(reply, 3);
      expect(scores.every((s) => s !== null && s >= 0 && s <= 10)).toBe(true);
      scores.forEach((s, i) => {
        totals[i] += s!;
      });
    }
    expect(totals[2]).toBeGreaterThan(totals[1]);
    expect(totals[1]).toBeGreaterThan(totals[0]);
  });

  it('rejects a bad skill and answers unknown requests harmlessly', () => {
    expect(() => createColbenchSimulatedPolicy({ tasks, skill: 1.5 })).toThrow('"skill" must be a number in [0, 1]');
    const policy = createColbenchSimulatedPolicy({ tasks, skill: 1 });
    expect(
      policy(
        request([
          { role: 'system', content: 'other' },
          { role: 'user', content: 'hi' },
        ]),
      ).texts[0],
    ).toContain('not sure');
    expect(policy(request(agentMessages(CODE_AGENT_SYSTEM_PROMPT, 'unknown problem', []))).texts[0]).toContain('not sure which project');
  });
});

describe('episodes played by the simulated policy', () => {
  it('code: answers within a few turns; success rate follows skill', async () => {
    const rate = async (skill: number) => {
      const policy = createColbenchSimulatedPolicy({ tasks, skill });
      const run = textualRunCodeTests();
      let ok = 0;
      for (const t of tasks) {
        const r = await runColbenchEpisode({
          task: t,
          kind: 'code',
          prompts: DEFAULT_COLBENCH_PROMPTS.code,
          agent: simulatedChat(policy),
          human: simulatedChat(policy),
          agentDecoding: codeDecoding,
          humanDecoding,
          sampleIndex: 0,
          seed: 1,
        });
        expect(r.answeredWithMarker).toBe(true);
        expect(r.agentTurns).toBeGreaterThanOrEqual(2);
        expect(r.agentTurns).toBeLessThanOrEqual(4);
        if ((await scoreCodeTrajectory(r, t, run)).success) ok++;
      }
      return ok / tasks.length;
    };
    expect(await rate(1)).toBe(1);
    expect(await rate(0)).toBe(0);
  });

  it('html: the final render is the reference at skill 1', async () => {
    const policy = createColbenchSimulatedPolicy({ tasks: pages, skill: 1 });
    const images = memoryImages();
    for (const p of pages) {
      const r = await runColbenchEpisode({
        task: p,
        kind: 'html',
        prompts: DEFAULT_COLBENCH_PROMPTS.html,
        agent: simulatedChat(policy),
        human: simulatedChat(policy),
        render: fakeRender,
        saveImage: images.saveImage,
        agentDecoding: codeDecoding,
        humanDecoding,
        sampleIndex: 0,
        seed: 2,
      });
      expect(await scoreHtmlTrajectory(r, p, { render: fakeRender, similarity: fakeSimilarity, loadImage: images.loadImage })).toEqual({
        similarity: 1,
        answered: true,
      });
      // The human saw identical pictures and said so.
      expect(r.dialogue.filter((t) => t.role === 'human').every((t) => t.content.includes('exactly like'))).toBe(true);
    }
  });
});
