// The SIMULATED policy stands in for a model server (no GPU/weights here); these tests pin the properties the
// dry-run server, the request cache and the durability tests rely on.
import { describe, expect, it } from 'vitest';
import {
  createCoralSimulatedPolicy,
  DEFAULT_CORAL_PROMPTS,
  EXTRACTOR_SYSTEM_PROMPT,
  extractorUserPrompt,
  localExtractorReply,
  matchesGold,
  openingMessage,
  parseExtractorReply,
  systemPrompt,
  type CoralDataset,
  type CoralTask,
  type SimulatedRequest,
} from '../../../../../activities/recipes/coral';
import { fixtureTasks } from '../../../../helpers/coral';

const DATASETS: CoralDataset[] = ['mmlu_pro', 'gpqa', 'math', 'explore_tom', 'hi_tom'];
const firstTurn = (task: CoralTask, over: Partial<SimulatedRequest> = {}): SimulatedRequest => ({
  model: 'm',
  n: 1,
  seed: 3,
  temperature: 0.8,
  messages: [
    { role: 'system', content: systemPrompt(DEFAULT_CORAL_PROMPTS, task.dataset, 'assistant_sbs_short') },
    { role: 'user', content: openingMessage(DEFAULT_CORAL_PROMPTS, task) },
  ],
  ...over,
});
const isCorrect = (task: CoralTask, text: string) =>
  matchesGold(task, parseExtractorReply(task.dataset, localExtractorReply(task.dataset, text), 'fixed'), 'fixed');

describe('simulated CoRal policy', () => {
  it('answers the same request the same way, and gives n different candidates', () => {
    const tasks = fixtureTasks('mmlu_pro');
    const policy = createCoralSimulatedPolicy({ tasks, skill: 0.5 });
    const req = firstTurn(tasks[3], { n: 4 });
    const a = policy(req);
    expect(policy(structuredClone(req))).toEqual(a);
    expect(new Set(a.texts).size).toBe(4);
    expect(a.completionTokens).toHaveLength(4);
    expect(a.promptTokens).toBeGreaterThan(0);
  });

  it.each(DATASETS)('%s: skill 1 is always right, skill 0 always wrong, in the dataset answer format', (dataset) => {
    const tasks = fixtureTasks(dataset);
    const expert = createCoralSimulatedPolicy({ tasks, skill: 1 });
    const novice = createCoralSimulatedPolicy({ tasks, skill: 0 });
    for (const task of tasks) {
      for (const seed of [1, 2, 3]) {
        expect(isCorrect(task, expert(firstTurn(task, { seed })).texts[0])).toBe(true);
        const wrong = novice(firstTurn(task, { seed })).texts[0];
        expect(isCorrect(task, wrong)).toBe(false);
      }
    }
  });

  it('adopts a correct partner answer when agreeable, holds its own when not', () => {
    const tasks = fixtureTasks('mmlu_pro');
    const task = tasks[1]; // gold C
    const studentView = (partner: string): SimulatedRequest => ({
      model: 'm',
      n: 1,
      seed: 9,
      temperature: 0.8,
      messages: [
        { role: 'system', content: systemPrompt(DEFAULT_CORAL_PROMPTS, 'mmlu_pro', 'assistant_sbs_short') },
        { role: 'user', content: 'preamble' },
        { role: 'assistant', content: openingMessage(DEFAULT_CORAL_PROMPTS, task) },
        { role: 'user', content: partner },
      ],
    });
    const follower = createCoralSimulatedPolicy({ tasks, skill: 0, agreeability: 1 });
    expect(isCorrect(task, follower(studentView('I checked it.\nFinal answer: (C)')).texts[0])).toBe(true);
    const stubborn = createCoralSimulatedPolicy({ tasks, skill: 0, agreeability: 0 });
    const reply = stubborn(studentView('I checked it.\nFinal answer: (C)')).texts[0];
    expect(localExtractorReply('mmlu_pro', reply)).not.toBe('(C)');
  });

  it('extracts perfectly when asked with the extractor prompt', () => {
    for (const dataset of DATASETS) {
      const tasks = fixtureTasks(dataset);
      const policy = createCoralSimulatedPolicy({ tasks, skill: 0.5 });
      for (const task of tasks) {
        const response = policy(firstTurn(task)).texts[0];
        const req: SimulatedRequest = {
          model: 'x',
          n: 1,
          temperature: 0,
          messages: [
            { role: 'system', content: EXTRACTOR_SYSTEM_PROMPT },
            { role: 'user', content: extractorUserPrompt(DEFAULT_CORAL_PROMPTS, task, response) },
          ],
        };
        expect(policy(req).texts[0]).toBe(localExtractorReply(task.dataset, response));
      }
    }
  });

  it('greedy decoding ignores the seed; sampling depends on it', () => {
    const tasks = fixtureTasks('mmlu_pro');
    const policy = createCoralSimulatedPolicy({ tasks, skill: 0.5 });
    const greedy = tasks.map(
      (t) => policy(firstTurn(t, { temperature: 0, seed: 1 })).texts[0] === policy(firstTurn(t, { temperature: 0, seed: 2 })).texts[0],
    );
    expect(greedy.every(Boolean)).toBe(true);
    const sampled = tasks.map((t) => policy(firstTurn(t, { seed: 1 })).texts[0] === policy(firstTurn(t, { seed: 2 })).texts[0]);
    expect(sampled.some((same) => !same)).toBe(true);
  });

  it('replies "not sure yet" to a problem it does not know, and rejects a bad skill', () => {
    const policy = createCoralSimulatedPolicy({ tasks: fixtureTasks('math'), skill: 1 });
    const reply = policy({
      model: 'm',
      n: 1,
      temperature: 0,
      messages: [
        { role: 'system', content: 'x' },
        { role: 'user', content: 'What is 1+1?' },
      ],
    });
    expect(reply.texts[0]).toContain('not sure yet');
    expect(() => createCoralSimulatedPolicy({ tasks: [], skill: 1.5 })).toThrow('"skill" must be a number in [0, 1]');
  });
});
