// TOA's re-authored prompts (generate, refine, aggregate, judge, the reward question), the lenient judge-score reader,
// and the dry-run SIMULATOR answering those prompts: determinism, the quality model (ordering of policies, refinement,
// aggregation, judge scores) and the marker a simulated reward endpoint reads back.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../../../activities/llm/types';
import {
  aggregatePrompt,
  DEFAULT_TOA_PROMPTS as P,
  generatePrompt,
  judgePrompt,
  parseJudgeScore,
  refinePrompt,
  rewardQuestion,
} from '../../../../../activities/recipes/toa/prompts';
import { createToaSimulatedPolicy, simulatedScore } from '../../../../../activities/recipes/toa/simulated-policy';
import { loadToaTasks, type ToaTask } from '../../../../../activities/recipes/toa/tasks';

const instructions = loadToaTasks('configs/tasks/toa/instructions.jsonl', 'instruction');
const translations = loadToaTasks('configs/tasks/toa/translation.jsonl', 'translation');
const Q: ToaTask = { id: 'q', kind: 'instruction', instruction: 'How do I boil an egg?\n\n## Constraints\nUnder 50 words.' };
const MT: ToaTask = translations[0];

const content = (m: ChatMessage) => m.content as string;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('prompts', () => {
  it('generate: the question as the only user message', () => {
    expect(generatePrompt(P, Q)).toEqual([{ role: 'user', content: Q.instruction }]);
  });

  it('generate (translation): asks for the English translation of src only, naming the language', () => {
    const [m, ...rest] = generatePrompt(P, MT);
    expect(rest).toEqual([]);
    expect(m.role).toBe('user');
    expect(content(m)).toContain('German text');
    expect(content(m)).toContain('into English');
    expect(content(m)).toMatch(/translation only/);
    expect(content(m).endsWith(`\n\n${MT.src}`)).toBe(true);
    expect(content(m)).not.toContain(MT.ref!);
    expect(content(generatePrompt(P, { ...MT, srcLang: 'xq' })[0])).toContain('text (language code "xq")');
    expect(content(generatePrompt(P, { ...MT, srcLang: undefined })[0])).toMatch(/^Translate the text below into English\./);
    expect(() => generatePrompt(P, { ...MT, src: undefined })).toThrow('translation task "de-bakery-sunday" has no source text');
  });

  it('refine: the question and the earlier answer in blocks, asking for the new answer only', () => {
    const msgs = refinePrompt(P, Q, 'Put it in water.');
    expect(msgs).toHaveLength(1);
    expect(msgs[0].role).toBe('user');
    const text = content(msgs[0]);
    expect(text).toContain(`<question>\n${Q.instruction}\n</question>`);
    expect(text).toContain('<earlier_answer>\nPut it in water.\n</earlier_answer>');
    expect(text).toContain('Reply with the new answer only');
    expect(text.indexOf('<question>')).toBeLessThan(text.indexOf('<earlier_answer>'));
    const mt = content(refinePrompt(P, MT, 'The bakery is open.')[0]);
    expect(mt).toContain(`<source>\n${MT.src}\n</source>`);
    expect(mt).toContain('<earlier_translation>\nThe bakery is open.\n</earlier_translation>');
    expect(mt).toContain('Reply with the new English translation only');
  });

  it('rewardQuestion: the original question (never the refine prompt), the source for translation', () => {
    expect(rewardQuestion(Q)).toBe(Q.instruction);
    expect(rewardQuestion(Q)).not.toContain('earlier answer');
    expect(rewardQuestion(Q)).toBe(content(generatePrompt(P, Q)[0]));
    expect(rewardQuestion(MT)).toBe(MT.src);
  });

  it('aggregate: aggregator instructions + numbered responses as system, the original question as user', () => {
    const msgs = aggregatePrompt(P, Q, ['First answer.', 'Second answer\n## Response 9: kept verbatim']);
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    expect(msgs[1]).toEqual(generatePrompt(P, Q)[0]);
    const system = content(msgs[0]);
    expect(system).toContain('\n\n## Response 1:\nFirst answer.\n\n## Response 2:\nSecond answer\n## Response 9: kept verbatim');
    expect(system.indexOf('## Response 1:')).toBeGreaterThan(0);
    expect(system).not.toContain(Q.instruction);
    const mt = aggregatePrompt(P, MT, ['A.', 'B.', 'C.']);
    expect(mt[1]).toEqual(generatePrompt(P, MT)[0]);
    expect(content(mt[0])).toContain('## Response 3:\nC.');
    expect(content(mt[0])).toContain('translation');
    expect(() => aggregatePrompt(P, Q, [])).toThrow('got no responses');
  });

  it('judge: the question and the response, asking for {"score": 1..10}', () => {
    const msgs = judgePrompt(P, Q, 'Boil it for 8 minutes.');
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    const text = content(msgs[1]);
    expect(text).toContain(`<question>\n${Q.instruction}\n</question>`);
    expect(text).toContain('<response>\nBoil it for 8 minutes.\n</response>');
    expect(text).toContain('{"score": <a number from 1 (useless) to 10 (excellent)>}');
    const mt = content(judgePrompt(P, MT, 'The bakery opens at noon.')[1]);
    expect(mt).toContain(`<source>\n${MT.src}\n</source>`);
    expect(mt).toContain('<translation>\nThe bakery opens at noon.\n</translation>');
    expect(mt).toContain('German text');
  });

  it.each([
    ['{"score": 7}', 7],
    ['```json\n{"score": 8.5}\n```', 8.5],
    ['Here is my verdict {with braces}: {"reason": "fine {mostly}", "score": 6} — thanks', 6],
    ['{"verdict": {"score": 9}}', 9],
    ['{"notes": "no number"} then {"score": 4}', 4],
    ['{"score": "3"}', 3],
    ['Score: 7/10', 7],
    ['overall score = 4.5', 4.5],
    ['{"score": 10, "x": }', 10],
  ])('parseJudgeScore(%j) = %s', (text, score) => {
    expect(parseJudgeScore(text)).toBe(score);
  });

  it.each(['A solid answer, well organised.', '', '{"score": 42}', '{"score": 0}', '{"score": "high"}', '{"rating": 7}', 'score: eleven'])(
    'parseJudgeScore(%j) is undefined (unreadable, never 0)',
    (text) => {
      expect(parseJudgeScore(text)).toBeUndefined();
    },
  );
});

describe('the TOA simulator', () => {
  const quality = { strong: 0.8, middle: 0.5, weak: 0.2 };
  const sim = createToaSimulatedPolicy({ tasks: [...instructions, ...translations], quality, judgeUnreadable: 0 });
  const ask = (model: string, messages: ChatMessage[], seed?: number, n = 1) => sim({ model, messages, n, seed, temperature: 0.7 });
  const say = (model: string, messages: ChatMessage[], seed?: number) => ask(model, messages, seed).texts[0];
  const judge = (task: ToaTask, text: string) => parseJudgeScore(say('judge', judgePrompt(P, task, text)));
  const q = (text: string) => {
    const v = simulatedScore(text);
    if (v === undefined) throw new Error(`no marker in ${text}`);
    return v;
  };
  const seeds = Array.from({ length: 8 }, (_, i) => i + 1);

  it('is deterministic per request: the same request gets the same reply, another seed or model another', () => {
    const msgs = generatePrompt(P, instructions[2]);
    expect(ask('strong', msgs, 7)).toEqual(ask('strong', msgs, 7));
    expect(say('strong', msgs, 8)).not.toBe(say('strong', msgs, 7));
    expect(say('middle', msgs, 7)).not.toBe(say('strong', msgs, 7));
    const many = ask('strong', msgs, 7, 3);
    expect(many.texts).toHaveLength(3);
    expect(new Set(many.texts).size).toBe(3);
    expect(many.texts[0]).toBe(say('strong', msgs, 7));
    const j = judgePrompt(P, instructions[2], say('strong', msgs, 7));
    expect(say('judge', j)).toBe(say('judge', j));
  });

  it('replies carry a quality marker and name the task; tokens are words', () => {
    const task = instructions[4];
    const msgs = generatePrompt(P, task);
    const out = ask('middle', msgs, 3);
    const text = out.texts[0];
    expect(text).toMatch(/^\[q=\d\.\d{3}\] Answer on "Draft a polite two-paragraph email declining a Friday":/);
    expect(out.promptTokens).toBe(task.instruction.split(/\s+/).length);
    expect(out.completionTokens).toEqual([text.split(/\s+/).length]);
    expect(out.completionTokens[0]).toBeGreaterThanOrEqual(50);
    expect(out.completionTokens[0]).toBeLessThanOrEqual(170);
    const mt = say('middle', generatePrompt(P, MT), 3);
    expect(mt).toMatch(/^\[q=\d\.\d{3}\] English rendering of "Die Bäckerei an der Ecke hat":/);
    const srcWords = MT.src!.split(/\s+/).length;
    expect(mt.split(/\s+/).length).toBeGreaterThanOrEqual(srcWords - 1);
    expect(mt.split(/\s+/).length).toBeLessThanOrEqual(Math.ceil(srcWords * 1.3) + 1);
    expect(say('middle', refinePrompt(P, task, text), 3)).toMatch(/^\[q=\d\.\d{3}\] Revised answer on "Draft/);
    expect(say('middle', aggregatePrompt(P, task, [text]), 3)).toMatch(/^\[q=\d\.\d{3}\] Combined answer on "Draft/);
  });

  it('markers round-trip through simulatedScore; other text has no score', () => {
    const text = say('strong', generatePrompt(P, instructions[0]), 1);
    const v = simulatedScore(text);
    expect(v).toBeGreaterThan(0.5);
    expect(text.startsWith(`[q=${v!.toFixed(3)}]`)).toBe(true);
    expect(simulatedScore('[q=0.250] anything')).toBe(0.25);
    expect(simulatedScore('plain prose from a real model')).toBeUndefined();
    expect(simulatedScore('[q=1.500] out of range')).toBeUndefined();
  });

  it('judges score 1 + 9·quality with small noise, so the models’ order shows on average', () => {
    const scores: Record<string, number[]> = { strong: [], middle: [], weak: [] };
    for (const model of Object.keys(scores))
      for (const task of [...instructions, ...translations])
        for (const seed of seeds) {
          const text = say(model, generatePrompt(P, task), seed);
          const s = judge(task, text);
          expect(s).toBeDefined();
          expect(Math.abs(s! - (1 + 9 * q(text)))).toBeLessThan(1.2);
          scores[model].push(s!);
        }
    const m = Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, mean(v)]));
    expect(m.strong).toBeGreaterThan(m.middle + 1.5);
    expect(m.middle).toBeGreaterThan(m.weak + 1.5);
    expect(m.strong).toBeCloseTo(1 + 9 * 0.8, 0);
    expect(m.weak).toBeCloseTo(1 + 9 * 0.2, 0);
  });

  it('a judge request about text without a marker gets a middling score; unreadable replies are configurable', () => {
    const s = judge(Q, 'Boil it for eight minutes, then cool it in cold water.');
    expect(s).toBeGreaterThan(4);
    expect(s).toBeLessThan(7);
    const mute = createToaSimulatedPolicy({ tasks: instructions, quality, judgeUnreadable: 1 });
    expect(
      parseJudgeScore(mute({ model: 'judge', messages: judgePrompt(P, Q, '[q=0.9] x'), n: 1, temperature: 0 }).texts[0]),
    ).toBeUndefined();
    const usual = createToaSimulatedPolicy({ tasks: instructions, quality });
    const unreadable = Array.from({ length: 400 }, (_, i) =>
      parseJudgeScore(usual({ model: 'judge', messages: judgePrompt(P, Q, `[q=0.5] answer ${i}`), n: 1, temperature: 0 }).texts[0]),
    ).filter((x) => x === undefined).length;
    expect(unreadable).toBeGreaterThan(0);
    expect(unreadable).toBeLessThan(25);
  });

  it('refining a good response with a good model improves it on average; a weak model rarely does', () => {
    const gain: Record<string, number[]> = { strong: [], weak: [] };
    for (const task of instructions)
      for (const seed of seeds) {
        const parent = say('strong', generatePrompt(P, task), seed);
        for (const model of ['strong', 'weak']) gain[model].push(q(say(model, refinePrompt(P, task, parent), seed)) - q(parent));
      }
    const positive = (xs: number[]) => xs.filter((x) => x > 0).length / xs.length;
    expect(mean(gain.strong)).toBeGreaterThan(0.01);
    expect(positive(gain.strong)).toBeGreaterThan(0.65);
    expect(mean(gain.weak)).toBeLessThan(mean(gain.strong));
    expect(positive(gain.weak)).toBeLessThan(positive(gain.strong));
    // a chain of refinements by the good model keeps climbing
    const task = instructions[6];
    let text = say('strong', generatePrompt(P, task), 1);
    const start = q(text);
    for (let i = 0; i < 6; i++) text = say('strong', refinePrompt(P, task, text), i);
    expect(q(text)).toBeGreaterThan(start);
  });

  it('a refine request without a marked earlier answer is scored like a fresh answer', () => {
    const fresh = instructions.flatMap((t) => seeds.map((s) => q(say('weak', refinePrompt(P, t, 'plain text'), s))));
    expect(mean(fresh)).toBeGreaterThan(0.1);
    expect(mean(fresh)).toBeLessThan(0.3);
  });

  it('an aggregate (MoA) reply is at least as good as the best response it was shown, on average', () => {
    const over: number[] = [];
    for (const task of [...instructions, ...translations])
      for (const seed of seeds) {
        const inputs = ['strong', 'middle', 'weak'].map((m) => say(m, generatePrompt(P, task), seed));
        const best = Math.max(...inputs.map(q));
        for (const model of ['strong', 'middle', 'weak']) over.push(q(say(model, aggregatePrompt(P, task, inputs), seed)) - best);
      }
    expect(mean(over)).toBeGreaterThan(0.005);
    expect(over.filter((x) => x >= 0).length / over.length).toBeGreaterThan(0.6);
  });

  it('at the same budget, refining the best responses beats random sampling and a parallel ensemble', () => {
    const models = ['strong', 'middle', 'weak'];
    const N = 24;
    const best = { random: [] as number[], ensemble: [] as number[], tree: [] as number[] };
    for (const task of instructions)
      for (const seed of seeds.slice(0, 4)) {
        const gen = (m: string, i: number) => say(m, generatePrompt(P, task), seed * 1000 + i);
        // random sampling: N fresh answers of the best model
        best.random.push(Math.max(...Array.from({ length: N }, (_, i) => q(gen('strong', i)))));
        // parallel ensemble: N/K fresh answers per model
        best.ensemble.push(Math.max(...Array.from({ length: N }, (_, i) => q(gen(models[i % 3], i)))));
        // a greedy tree search: N/3 fresh answers over the models, then refine the best so far with the best model
        const pool = Array.from({ length: N / 3 }, (_, i) => gen(models[i % 3], i));
        for (let i = N / 3; i < N; i++) {
          const top = pool.reduce((a, b) => (q(b) > q(a) ? b : a));
          pool.push(say('strong', refinePrompt(P, task, top), seed * 1000 + i));
        }
        best.tree.push(Math.max(...pool.map(q)));
      }
    expect(mean(best.tree)).toBeGreaterThan(mean(best.random) + 0.01);
    expect(mean(best.tree)).toBeGreaterThan(mean(best.ensemble) + 0.01);
  });

  it('one shared skill: every model gets it up to a seeded offset from its name', () => {
    const shared = createToaSimulatedPolicy({ tasks: instructions, quality: 0.5, judgeUnreadable: 0 });
    const meanQuality = (model: string) =>
      mean(
        instructions.flatMap((t) =>
          seeds.map((seed) => q(shared({ model, messages: generatePrompt(P, t), n: 1, seed, temperature: 0.7 }).texts[0])),
        ),
      );
    const names = ['ckpt-a', 'ckpt-b', 'ckpt-c', 'ckpt-d'];
    const means = names.map(meanQuality);
    for (const m of means) expect(Math.abs(m - 0.5)).toBeLessThan(0.15 + 0.03);
    expect(Math.max(...means) - Math.min(...means)).toBeGreaterThan(0.03);
    expect(meanQuality('ckpt-a')).toBe(means[0]);
    expect(() => createToaSimulatedPolicy({ tasks: instructions, quality: 1.5 })).toThrow('"quality" must be a number in [0, 1]');
  });

  it('rejects qualities outside [0, 1] and models without a quality', () => {
    expect(() => createToaSimulatedPolicy({ tasks: instructions, quality: { a: 1.2 } })).toThrow('"a" must be a number in [0, 1]');
    expect(() => createToaSimulatedPolicy({ tasks: instructions, quality: { a: 0.5 }, judgeUnreadable: -1 })).toThrow('judgeUnreadable');
    expect(() => say('unknown', generatePrompt(P, Q))).toThrow('no quality for model "unknown" (known: strong, middle, weak)');
    // the judge role needs no quality
    expect(judge(Q, '[q=0.900] x')).toBeGreaterThan(8);
  });
});
