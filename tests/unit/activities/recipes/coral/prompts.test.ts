import { describe, expect, it } from 'vitest';
import {
  CORAL_DATASETS,
  DEFAULT_CORAL_PROMPTS,
  EXTRACTOR_SYSTEM_PROMPT,
  defaultSystemPromptStyle,
  extractorUserPrompt,
  openingMessage,
  SYSTEM_PROMPT_STYLES,
  systemPrompt,
  type CoralTask,
} from '../../../../../activities/recipes/coral';
import { fixtureTasks } from '../../../../helpers/coral';

const P = DEFAULT_CORAL_PROMPTS;
const answerFormat = (d: string) => P.render(`task_specific_inst.${d}`);

describe('prompts', () => {
  it('no agent system prompt can be mistaken for the extractor prompt', () => {
    for (const d of CORAL_DATASETS)
      for (const s of SYSTEM_PROMPT_STYLES) {
        const p = systemPrompt(P, d, s);
        expect(p).not.toBe(EXTRACTOR_SYSTEM_PROMPT);
        expect(p.includes(EXTRACTOR_SYSTEM_PROMPT) || EXTRACTOR_SYSTEM_PROMPT.includes(p)).toBe(false);
        expect(p.endsWith(answerFormat(d))).toBe(true);
      }
    expect(systemPrompt(P, 'gpqa', 'assistant_sbs')).not.toBe(systemPrompt(P, 'gpqa', 'assistant_sbs_short'));
    expect(defaultSystemPromptStyle('gpqa')).toBe('assistant_sbs');
    expect(defaultSystemPromptStyle('math')).toBe('assistant_sbs_short');
  });

  it('answer-format lines ask for the shape each parser reads', () => {
    expect(answerFormat('mmlu_pro')).toContain('Final answer: (X)');
    expect(answerFormat('math')).toContain('$\\boxed{...}$');
    expect(answerFormat('hi_tom')).toContain('Short Answer:');
  });

  it('opening message letters every option, up to J for MMLU-Pro', () => {
    const task = fixtureTasks('mmlu_pro').find((t) => t.id === 'demo-07')!;
    const msg = openingMessage(P, task);
    expect(msg).toContain(task.question);
    expect(msg).toContain('(A) 540 degrees');
    expect(msg).toContain('(J) 720 degrees');
    const tom = fixtureTasks('explore_tom')[0];
    expect(openingMessage(P, tom)).toContain(`Story: ${tom.story}`);
    expect(openingMessage(P, tom)).toContain(`Question: ${tom.question}`);
  });

  it('the extraction prompt shows the task and the one response, and demands the dataset format', () => {
    const mc: CoralTask = { id: 'q', dataset: 'gpqa', question: 'Which?', options: ['x', 'y', 'z', 'w'], gold: 'B' };
    const p = extractorUserPrompt(P, mc, 'I pick (B).');
    expect(p).toContain('Which?');
    expect(p).toContain('(D) w');
    expect(p).toContain('I pick (B).');
    expect(p).toContain('"(X)"');
    expect(extractorUserPrompt(P, { id: 'm', dataset: 'math', question: 'P', gold: '1' }, 'r')).toContain('$\\boxed{...}$');
    expect(extractorUserPrompt(P, fixtureTasks('hi_tom')[0], 'r')).toContain('fewer than five words');
  });
});
