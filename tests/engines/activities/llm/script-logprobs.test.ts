// Mean log-probs from a local checkpoint (activities/llm/mean_logprobs.py through activities/llm/script-logprobs.ts):
// where the serving kind gives no prompt log-probs (`transformers serve`, the real CPU loop), SWEET-RL's learned
// critic and its policy baseline are read from the checkpoints themselves. Runs the real script on the tiny model.
import { describe, expect, it } from 'vitest';
import { scriptLogProbChat } from '../../../../activities/llm/script-logprobs';
import type { ChatCall, ChatMessage } from '../../../../activities/llm/types';
import { tinyModel } from '../../../helpers/tiny-model';

const call = (messages: ChatMessage[]): ChatCall => ({ messages, decoding: { temperature: 0, maxTokens: 1 }, sampleKey: 'k' });
const ACTION: ChatMessage = { role: 'assistant', content: 'Which tax rate applies to you?' };
const POLICY_VIEW: ChatMessage[] = [
  { role: 'system', content: 'You help write a function.' },
  { role: 'user', content: 'I need a tax calculator.' },
  ACTION,
];
const CRITIC_VIEW: ChatMessage[] = [
  { role: 'system', content: 'The final answer the person needs is:\ndef tax(x): return 0.2 * x' },
  ...POLICY_VIEW,
];

describe('mean log-probs from a local checkpoint', () => {
  it('scores each action after its context; a batch gives each item what it gets alone', async () => {
    const chat = scriptLogProbChat(await tinyModel());
    // Same tick: one run of the script for the three.
    const [policy, critic, other] = await Promise.all([
      chat(call(POLICY_VIEW)),
      chat(call(CRITIC_VIEW)),
      chat(call([...POLICY_VIEW.slice(0, 2), { role: 'assistant', content: 'I WANT TO ANSWER: def tax(x): return x' }])),
    ]);
    for (const out of [policy, critic, other]) {
      expect(Number.isFinite(Number(out.texts[0]))).toBe(true);
      expect(Number(out.texts[0])).toBeLessThan(0);
      expect(out.usage.promptTokens).toBeGreaterThan(0); // the action's tokens
    }
    expect(policy.usage.promptTokens).toBe(critic.usage.promptTokens); // same action, same tokens counted
    expect(Number(critic.texts[0])).not.toBeCloseTo(Number(policy.texts[0]), 6); // the reference in front changes it
    const alone = await chat(call(CRITIC_VIEW));
    expect(Number(alone.texts[0])).toBeCloseTo(Number(critic.texts[0]), 5);
  });

  it('names the checkpoint when the script cannot run on it', async () => {
    const chat = scriptLogProbChat('/nonexistent/critic-iter-1');
    await expect(chat(call(POLICY_VIEW))).rejects.toThrow(/mean_logprobs\.py on \/nonexistent\/critic-iter-1 failed/);
  });

  it('refuses a call without an action at the end', async () => {
    const chat = scriptLogProbChat('/unused');
    expect(() => chat(call(POLICY_VIEW.slice(0, 2)))).toThrow(/assistant: the action/);
  });
});
