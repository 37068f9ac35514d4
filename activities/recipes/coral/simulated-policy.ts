// SIMULATOR — a stand-in for a real model on machines without a GPU or weights (demo, tests, benchmarks).
// It answers CoRal conversations from the task files' gold answers: correct with probability `skill`, agreeing
// with its partner with probability `agreeability` (more readily when the partner is right). Extraction requests
// are answered perfectly by the local parser. All randomness is seeded by the request itself, so the same request
// always gets the same answer (the cache and durability tests rely on that) while n candidates differ.
import type { PolicyReply, PolicyRequest } from '../../serving/openai-compatible-server';
import { extractLocally, UNSURE } from './beliefs';
import { EXTRACTOR_SYSTEM_PROMPT } from './prompts';
import { hashSeed, seededRandom } from './seeded-random';
import { isMultipleChoice, letter, type CoralTask } from './tasks';

export interface SimulatedPolicyOptions {
  tasks: CoralTask[];
  skill: number;
  agreeability?: number;
}

const text = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('') : '';
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

function questionIn(msg: string): string | undefined {
  return (
    /need to solve: "([\s\S]*?)"\nThe options are:/.exec(msg)?.[1] ??
    /math problem I need to solve: "([\s\S]*)"$/.exec(msg)?.[1] ??
    /^Question: (.*)$/m.exec(msg)?.[1]
  );
}

function wrongAnswer(task: CoralTask, rand: () => number): string {
  if (isMultipleChoice(task.dataset)) {
    const n = task.options!.length;
    const goldIdx = task.gold.charCodeAt(0) - 65;
    return letter((goldIdx + 1 + Math.floor(rand() * (n - 1))) % n);
  }
  if (task.dataset === 'math') {
    const v = Number(task.gold);
    return Number.isFinite(v) ? String(v + 1 + Math.floor(rand() * 3)) : `${task.gold}+1`;
  }
  const g = task.gold.toLowerCase();
  if (g === 'yes') return 'no';
  if (g === 'no') return 'yes';
  if (g.startsWith('knows about')) return g.replace('knows about', 'does not know about');
  if (g.includes('does not know')) return g.replace('does not know', 'knows');
  const alternatives = [...new Set((task.story ?? '').match(/\b[a-z]+_[a-z]+\b/g) ?? [])].filter((w) => w !== g);
  return alternatives.length ? alternatives[Math.floor(rand() * alternatives.length)] : 'somewhere else';
}

function statement(task: CoralTask, answer: string): string {
  if (isMultipleChoice(task.dataset)) return `The correct answer is (${answer}).`;
  if (task.dataset === 'math') return `So the answer is $\\boxed{${answer}}$.`;
  return `Short Answer: ${answer}`;
}

function answerOf(task: CoralTask, reply: string): string | undefined {
  const e = extractLocally(task.dataset, reply);
  if (e === UNSURE) return undefined;
  if (isMultipleChoice(task.dataset)) return e.slice(1, 2);
  if (task.dataset === 'math') return e.replace(/^\$\\boxed\{/, '').replace(/\}\$$/, '');
  return e;
}

export function createCoralSimulatedPolicy(o: SimulatedPolicyOptions): (req: PolicyRequest) => PolicyReply {
  const byQuestion = new Map(o.tasks.map((t) => [t.question, t]));
  const agreeability = o.agreeability ?? 0.7;
  return (req) => {
    const msgs = req.messages.map((m) => ({ role: m.role, content: text(m.content) }));
    const promptTokens = msgs.reduce((a, m) => a + words(m.content), 0);
    const base = hashSeed(req.model, JSON.stringify(msgs), req.seed ?? 'none', req.temperature);

    if (msgs[0]?.role === 'system' && msgs[0].content === EXTRACTOR_SYSTEM_PROMPT) {
      const user = msgs[msgs.length - 1]?.content ?? '';
      const q = /^Question: (.*)$/m.exec(user)?.[1];
      const task = q ? byQuestion.get(q) : undefined;
      const response = /Response:\n"""\n([\s\S]*)\n"""/.exec(user)?.[1] ?? '';
      const reply = task ? extractLocally(task.dataset, response) : UNSURE;
      return { texts: Array.from({ length: req.n }, () => reply), promptTokens, completionTokens: Array(req.n).fill(words(reply)) };
    }

    let task: CoralTask | undefined;
    for (const m of msgs) {
      const q = questionIn(m.content);
      if (q && (task = byQuestion.get(q))) break;
    }
    const texts = Array.from({ length: req.n }, (_, i) => {
      if (!task) return 'I am not sure yet — could you state the problem again?';
      const rand = seededRandom(base + i * 7919);
      const partnerMsg = [...msgs].reverse().find((m) => m.role === 'user')?.content ?? '';
      const partner = answerOf(task, partnerMsg);
      const partnerRight = partner !== undefined && partner.toLowerCase() === (isMultipleChoice(task.dataset) ? task.gold : task.gold.toLowerCase());
      const knows = rand() < o.skill;
      if (partner !== undefined) {
        const convinced = partnerRight ? rand() < agreeability + (1 - agreeability) * o.skill : rand() < agreeability * (1 - o.skill);
        if (convinced) return `I went through your reasoning step by step and I agree with it. ${statement(task, partner)}`;
        const mine = knows ? (isMultipleChoice(task.dataset) ? task.gold : task.gold) : wrongAnswer(task, rand);
        return `I do not think that is right; one of the steps does not hold. Redoing it carefully: ${statement(task, mine)}`;
      }
      const mine = knows ? task.gold : wrongAnswer(task, rand);
      return `Let me work through this step by step. After checking each option against the facts, ${statement(task, mine)}`;
    });
    return { texts, promptTokens, completionTokens: texts.map(words) };
  };
}
