// CoRal's prompts, written in our own words after the paper's description: the agents' system prompts, the
// scripted opening message (turn 0) and the belief-extraction prompt. See the seed brief A.2.
import { isMultipleChoice, isTheoryOfMind, letter, type CoralDataset, type CoralTask } from './tasks';

export type SystemPromptStyle = 'assistant_sbs_short' | 'assistant_sbs' | 'simple_cot';

const TASK_NAME: Record<CoralDataset, string> = {
  mmlu_pro: 'reasoning-heavy multiple-choice',
  gpqa: 'graduate-level biology, physics and chemistry',
  math: 'competition math',
  explore_tom: 'theory-of-mind',
  hi_tom: 'theory-of-mind',
};

/** The line that tells an agent how to state its final answer (the extractor looks for exactly this). */
export function answerFormat(d: CoralDataset): string {
  if (isMultipleChoice(d)) return 'When you state a final answer, write it as "The correct answer is (X)." where X is the option letter.';
  if (d === 'math') return 'When you state a final answer, put it in LaTeX as $\\boxed{answer}$.';
  return 'When you state a final answer, end with "Short Answer: <answer in a few words>".';
}

export function systemPrompt(d: CoralDataset, style: SystemPromptStyle): string {
  const topic = TASK_NAME[d];
  if (style === 'simple_cot')
    return `You solve ${topic} problems. Reason through the problem step by step, then give your answer.\n${answerFormat(d)}`;
  if (style === 'assistant_sbs')
    return [
      `You are working through ${topic} problems together with a partner.`,
      'Begin by sketching a plan and ask your partner whether they agree with it before going deep.',
      'Question any step you doubt and ask for clarification; politeness is no reason to accept a wrong step.',
      'When your partner offers a solution, verify each step and name precisely where it goes wrong, if anywhere.',
      'If you are challenged, re-examine your reasoning: correct genuine errors, but keep your position when it is right.',
      'Stay on the problem and keep replies focused.',
      answerFormat(d),
    ].join('\n');
  return [
    `You are working through ${topic} problems together with a partner.`,
    'Give a complete solution of your own first.',
    'When your partner offers a solution, verify each step and name precisely where it goes wrong, if anywhere.',
    'If you are challenged, re-examine your reasoning: correct genuine errors, but keep your position when it is right.',
    'Stay on the problem; be direct and brief.',
    answerFormat(d),
  ].join('\n');
}

/** The default style per dataset, as the seed configures it (GPQA uses the longer collaborative prompt). */
export const defaultStyle = (d: CoralDataset): SystemPromptStyle => (d === 'gpqa' ? 'assistant_sbs' : 'assistant_sbs_short');

export function optionLines(task: CoralTask): string {
  return (task.options ?? []).map((o, i) => `(${letter(i)}) ${o}`).join('\n');
}

/** Turn 0: the scripted message that opens every conversation, attributed to the "student". */
export function openingMessage(task: CoralTask): string {
  if (isMultipleChoice(task.dataset))
    return `Here is a problem I need to solve: "${task.question}"\nThe options are:\n${optionLines(task)}`;
  if (task.dataset === 'math') return `Here is a math problem I need to solve: "${task.question}"`;
  return `I need to answer a question about the story below.\nStory: ${task.story}\nQuestion: ${task.question}`;
}

/**
 * Belief extraction: a separate call that sees ONE response (never the conversation) and states which final
 * answer it commits to, or "not sure yet". The simulator recognises this system prompt by its first line.
 */
export const EXTRACTOR_SYSTEM_PROMPT =
  'You are an answer extractor. Read the response below and report which final answer it commits to. ' +
  'Do not solve the problem yourself. If the response does not explicitly commit to a final answer, reply exactly "not sure yet".';

export function extractorUserPrompt(task: CoralTask, response: string): string {
  const parts = [`Question: ${task.question}`];
  if (task.options) parts.push(`Options:\n${optionLines(task)}`);
  if (task.story) parts.push(`Story: ${task.story}`);
  parts.push(`Response:\n"""\n${response}\n"""`);
  if (isMultipleChoice(task.dataset)) parts.push('Reply with the chosen option as "(X)" and nothing else, or "not sure yet".');
  else if (task.dataset === 'math') parts.push('Reply with the final answer as $\\boxed{...}$ and nothing else, or "not sure yet".');
  else if (isTheoryOfMind(task.dataset)) parts.push('Reply with the final answer in fewer than five words, or "not sure yet".');
  return parts.join('\n\n');
}
