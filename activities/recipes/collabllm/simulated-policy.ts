// SIMULATOR of every CollabLLM role for dry runs (demo, tests, bench) — not a result. Seeded by the request, so a
// cached or repeated call gets the same reply. It recognises the request by its prompt:
//   user simulator — opens with a vague request naming the task's first line; answers a question with a detail of
//                    the goal; ends the chat once the assistant's last answer is right; 3 % of replies are not
//                    JSON, so the re-ask and "simulator failed" paths run in every dry run;
//   assistant      — the policy: with probability `skill` asks a clarifying question first, then answers right
//                    (the task's answer, reference article, reference code, or Abg-CoQA label in \boxed{}), else
//                    answers wrong at once; asked through the proactive instruction it replies the same in its
//                    JSON `response`;
//   judges         — accuracy: the last \boxed{} / answer against the ground truth; interactivity: the share of
//                    assistant turns that ask something; 3 % unreadable;
//   extractor      — the last assistant message's code block or text.
// Training raises `skill` (activities/serving/simulated-skill.ts).
// It knows the project's own prompt texts only, so a config with a `prompts:` file cannot use it (configs/load.ts).
import { hashSeed, seededRandom } from '../../seeded-random';
import { lastBoxed } from '../shared/boxed';
import { checkOdds, type SimulatedReply, type SimulatedRequest } from '../shared/simulated-policy';
import { TERMINATE } from './prompts';
import { ABG_COQA_LABELS, type CollabTask } from './tasks';

export interface CollabSimulatedPolicyOptions {
  tasks: readonly CollabTask[];
  skill: number;
}

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (p as { text?: string }).text ?? '').join('') : '';
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const firstLine = (s: string) => s.trim().split('\n')[0].trim();
const codeBlock = (s: string) => /```(?:python)?\n([\s\S]*?)```/.exec(s)?.[1] ?? s;
const section = (text: string, title: string) => new RegExp(`## ${title}[^\\n]*\\n([\\s\\S]*?)(?=\\n## |$)`).exec(text)?.[1]?.trim() ?? '';
const json = (o: Record<string, unknown>) => JSON.stringify(o);

/** What a right and a wrong answer of a task look like. */
function answers(task: CollabTask): { right: string; wrong: string } {
  if (task.kind === 'math') {
    const gold = lastBoxed(task.answer) ?? task.answer;
    const n = Number(gold);
    return {
      right: `Working it through step by step, the answer is \\boxed{${gold}}.`,
      wrong: `I think the answer is \\boxed{${Number.isFinite(n) ? n + 1 : `${gold}+1`}}.`,
    };
  }
  if (task.kind === 'abg-coqa') {
    const other = ABG_COQA_LABELS.find((l) => l !== task.answer) ?? ABG_COQA_LABELS[0];
    return { right: `Reading the story, the question is \\boxed{${task.answer}}.`, wrong: `The question is \\boxed{${other}}.` };
  }
  if (task.kind === 'document') {
    const sentences = task.answer.split(/(?<=\.)\s+/);
    return { right: task.answer, wrong: sentences.slice(0, Math.max(1, Math.floor(sentences.length / 3))).join(' ') };
  }
  const entry = task.code?.entryPoint ?? 'task_func';
  return {
    right: `Here is the function:\n\n\`\`\`python\n${task.answer.trim()}\n\`\`\``,
    wrong: `Here is the function:\n\n\`\`\`python\ndef ${entry}(*args, **kwargs):\n    return None\n\`\`\``,
  };
}

export function createCollabSimulatedPolicy(o: CollabSimulatedPolicyOptions): (req: SimulatedRequest) => SimulatedReply {
  checkOdds({ skill: o.skill });
  const taskOfGoal = (goal: string) => o.tasks.find((t) => goal.startsWith(t.prompt.trim()));
  const byOpening = new Map(o.tasks.map((t) => [firstLine(t.prompt), t]));
  const taskOfConversation = (firstUser: string) => [...byOpening].find(([line]) => firstUser.includes(line))?.[1];
  const isRight = (task: CollabTask, reply: string) =>
    task.kind === 'math' || task.kind === 'abg-coqa'
      ? lastBoxed(reply) !== undefined && lastBoxed(reply) === (lastBoxed(task.answer) ?? task.answer)
      : task.kind === 'document'
        ? reply.includes(task.answer.trim())
        : codeBlock(reply).trim() === task.answer.trim();

  const user = (request: string, rand: () => number): string => {
    if (rand() < 0.03) return 'sure, let me think about that'; // not JSON: the caller re-asks
    const task = taskOfGoal(section(request, 'Your hidden goal'));
    const history = section(request, 'Conversation so far');
    if (!task) return json({ current_answer: '', thought: 'unknown goal', response: `I give up. ${TERMINATE}` });
    if (history.startsWith('(nothing yet'))
      return json({ current_answer: '', thought: 'open vaguely', response: `hey, can you help me with this? ${firstLine(task.prompt)}` });
    const last = history.split('**Assistant**: ').pop() ?? '';
    if (isRight(task, last))
      return json({ current_answer: 'done', thought: 'that is what I needed', response: `perfect, thanks! ${TERMINATE}` });
    if (last.includes('?'))
      return json({ current_answer: '', thought: 'give a detail', response: `here are the details: ${task.prompt.slice(0, 400)}` });
    return json({ current_answer: 'not right yet', thought: 'push back', response: "that doesn't look right to me, can you check again?" });
  };

  const assistant = (msgs: Array<{ role: string; content: string }>, rand: () => number): string => {
    const conversation = msgs.filter((m) => m.role !== 'system');
    const task = taskOfConversation(conversation.find((m) => m.role === 'user')?.content ?? '');
    if (!task) return 'Could you tell me more about what you need?';
    const asked = conversation.some((m) => m.role === 'assistant' && m.content.trim().endsWith('?'));
    const a = answers(task);
    if (rand() >= o.skill) return a.wrong;
    return asked ? a.right : 'Happy to help. Before I start: could you tell me the exact requirements and any preferences?';
  };

  const judge = (request: string, rand: () => number): string => {
    if (rand() < 0.03) return 'The assistant did fine.'; // unreadable: re-asked, then missing
    const conversation = section(request, 'Conversation');
    const turns = conversation.split('**Assistant**: ').slice(1);
    if (request.includes('"accuracy"')) {
      const gold = lastBoxed(section(request, 'Ground-truth answer')) ?? section(request, 'Ground-truth answer');
      const said = [...turns]
        .reverse()
        .map((t) => lastBoxed(t))
        .find((b) => b !== undefined);
      return json({ thought: 'compared the last answer', accuracy: said !== undefined && said === gold ? 1 : 0 });
    }
    const asking = turns.filter((t) => t.includes('?')).length;
    return json({ thought: 'share of turns that ask', interactivity: turns.length ? Math.min(1, (asking + 0.5) / turns.length) : 0 });
  };

  const extractor = (request: string): string => {
    const turns = section(request, 'Conversation').split('**Assistant**: ').slice(1);
    const last = (turns[turns.length - 1] ?? '').split('\n\n**User**: ')[0];
    const text = request.includes('piece of code') ? codeBlock(last).trim() : last.trim();
    return json({ thought: 'the last version', final_completion: text });
  };

  /** A proactive request holds the conversation as "**User**: …" / "**Assistant**: …" paragraphs. */
  const proact = (request: string, rand: () => number): string => {
    const msgs = section(request, 'Conversation so far')
      .split(/\n\n(?=\*\*(?:User|Assistant)\*\*: )/)
      .map((p) => /^\*\*(User|Assistant)\*\*: ([\s\S]*)$/.exec(p))
      .flatMap((m) => (m ? [{ role: m[1].toLowerCase(), content: m[2] }] : []));
    return json({ current_problem: 'what the user asked', thought: 'reply', response: assistant(msgs, rand) });
  };

  return (req) => {
    const msgs = req.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
    const promptTokens = msgs.reduce((a, m) => a + words(m.content), 0);
    const base = hashSeed(req.model, JSON.stringify(msgs), req.temperature === 0 ? 'greedy' : String(req.seed ?? 'unseeded'));
    // A judge's re-ask ends with a notice; the request it answers is the first user message.
    const request = msgs.find((m) => m.role === 'user')?.content ?? '';
    const texts = Array.from({ length: Math.max(1, req.n) }, (_, i) => {
      const rand = seededRandom(hashSeed(base, i));
      if (request.includes('## Your hidden goal')) return user(request, rand);
      if (request.includes('Extract the final')) return extractor(request);
      if (request.includes('"current_problem"')) return proact(request, rand);
      if (request.includes('"accuracy"') || request.includes('"interactivity"')) return judge(request, rand);
      return assistant(msgs, rand);
    });
    return { texts, promptTokens, completionTokens: texts.map(words) };
  };
}
