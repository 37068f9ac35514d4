// SIMULATOR — a stand-in for real models on machines without a GPU or weights. The project's dry-run
// OpenAI-compatible server answers ColBench requests with it (demo, tests, benchmarks); it is never a result.
// The role of a request is read from its system prompt (prompts.ts), the task from the problem description in it:
//  - code agent: asks one to three clarifying questions, then answers with the marker and either the exact
//    reference (probability `skill`) or a plausibly buggy variant (one constant or comparison changed).
//  - html agent: proposes a page every turn after `OUTPUT:` — the reference page (probability `skill`) or a
//    degraded variant (colours changed, a section dropped) — and answers with the marker after one to three turns.
//  - code human: two sentences drawn from the hidden reference (the line most related to the question, quoted).
//  - html human: it cannot see pictures, so it compares the two image data URLs: identical → satisfied; no draft →
//    asks for one; otherwise two generic sentences about visual differences. Under compat: seed its instructions
//    open the user message instead of being the system prompt.
//  - critic: scores candidates higher when they move toward the reference (contain it > ask a question > other >
//    answer with something else), plus seeded noise; as the learned critic (prompt log-probs), the same ordering
//    scaled by `skill`, against a flat policy baseline.
// It knows the project's own prompt texts only, so a config with a `prompts:` file cannot use it (configs/load.ts).
// All randomness is seeded by the request itself (model, messages, seed — ignored at temperature 0 — and the
// candidate index): the same request always gets the same reply, while n candidates differ. No timers, no I/O.
import { checkOdds, type SimulatedReply, type SimulatedRequest } from '../shared/simulated-policy';
import { hashSeed, seededRandom } from '../../seeded-random';
import { extractHtml } from './agent-reply';
import { criticContext } from './baselines';
import {
  ANSWER_MARKER,
  CODE_AGENT_SYSTEM_PROMPT,
  CODE_HUMAN_SYSTEM_PROMPT,
  CRITIC_REFERENCE_HEADING,
  CRITIC_SYSTEM_PROMPT,
  CRITIC_TASK_HEADING,
  HIDDEN_INFO_HEADING,
  HTML_AGENT_SEED_SYSTEM_PROMPT,
  HTML_AGENT_SYSTEM_PROMPT,
  HTML_HUMAN_SYSTEM_PROMPT,
  OUTPUT_MARKER,
  REQUEST_HEADING,
} from './prompts';
import type { ColbenchTask } from './tasks';

export type ColbenchSimulatedPolicy = ((req: SimulatedRequest) => SimulatedReply) & {
  meanLogProb(req: { messages: SimulatedRequest['messages'] }): number;
};

export interface ColbenchSimulatedPolicyOptions {
  tasks: readonly ColbenchTask[];
  /** Probability that an answer (code) or a proposed page (html) is exactly the reference, 0..1. */
  skill: number;
}

interface Msg {
  role: string;
  text: string;
  images: string[];
}

function readMessage(m: { role: string; content: unknown }): Msg {
  if (typeof m.content === 'string') return { role: m.role, text: m.content, images: [] };
  const parts = Array.isArray(m.content) ? m.content : [];
  const text: string[] = [];
  const images: string[] = [];
  for (const p of parts) {
    if (!p || typeof p !== 'object') continue;
    const part = p as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
    if (part.type === 'image_url' && typeof part.image_url?.url === 'string') images.push(part.image_url.url);
    else if (typeof part.text === 'string') text.push(part.text);
  }
  return { role: m.role, text: text.join('\n'), images };
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;
const pick = <T>(xs: readonly T[], rand: () => number): T => xs[Math.floor(rand() * xs.length)];
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

// ---- buggy code and degraded pages, deterministic given the choice ---------------------------------------------

/** Every single-site mutation of a reference: a numeric constant changed, or a comparison loosened/tightened. */
export function codeMutations(reference: string): string[] {
  const out: string[] = [];
  // Skip the def line: changing a default argument would often not matter.
  const bodyStart = reference.indexOf('\n') + 1;
  for (const m of reference.slice(bodyStart).matchAll(/(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])/g)) {
    const at = bodyStart + m.index!;
    const v = Number(m[1]);
    const changed = m[1].includes('.')
      ? String(Math.round(v * 1.5 * 100) / 100 || 0.5)
      : String(v === 0 ? 1 : v + Math.max(1, Math.round(v * 0.2)));
    out.push(reference.slice(0, at) + changed + reference.slice(at + m[1].length));
  }
  for (const m of reference.slice(bodyStart).matchAll(/(>=|<=|(?<![<>=!])[<>](?!=))/g)) {
    const at = bodyStart + m.index!;
    const swap: Record<string, string> = { '>=': '>', '<=': '<', '>': '>=', '<': '<=' };
    out.push(reference.slice(0, at) + swap[m[1]] + reference.slice(at + m[1].length));
  }
  if (out.length === 0) {
    const nl = reference.indexOf('\n');
    out.push(`${reference.slice(0, nl + 1)}    return None\n${reference.slice(nl + 1)}`);
  }
  return out.filter((v) => v !== reference);
}

/** Degraded versions of a reference page: colours rotated, a section removed, the main heading reworded. */
export function pageMutations(reference: string): string[] {
  const out: string[] = [];
  const colours = [...new Set(reference.match(/#[0-9a-fA-F]{6}\b/g) ?? [])];
  if (colours.length) {
    const rotate = (hex: string) => `#${hex.slice(5, 7)}${hex.slice(1, 3)}${hex.slice(3, 5)}`;
    out.push(colours.reduce((page, c) => page.split(c).join(rotate(c)), reference));
  }
  const section = /<section\b[\s\S]*?<\/section>/i.exec(reference);
  if (section) out.push(reference.replace(section[0], ''));
  const h1 = /<h1\b([^>]*)>([\s\S]*?)<\/h1>/i.exec(reference);
  if (h1) out.push(reference.replace(h1[0], `<h1${h1[1]}>Welcome to our website</h1>`));
  if (out.length === 0) out.push(reference.replace(/<body\b[^>]*>/i, (b) => `${b}<div style="background:#ff00ff;height:200px"></div>`));
  return out.filter((v) => v !== reference);
}

// ---- roles ------------------------------------------------------------------------------------------------------

const QUESTIONS = [
  'What inputs will you pass to the function, and what should it return?',
  'Are there any thresholds or limits where the rule changes?',
  'How should the result be rounded?',
  'Are there special cases I should handle differently?',
  'What should happen with zero or negative values?',
  'Is there a minimum or maximum the result should stay within?',
  'Do any discounts, surcharges or bonuses apply?',
  'Should the function return a number, a string, or something else?',
];

function codeAgent(task: ColbenchTask, msgs: Msg[], rand: () => number, skill: number): string {
  const asked = msgs.filter((m) => m.role === 'assistant').length;
  const answerNow = asked >= 3 || (asked >= 1 && rand() < 0.5);
  if (!answerNow) {
    const q = pick(QUESTIONS, rand);
    const second =
      rand() < 0.4
        ? ` ${pick(
            QUESTIONS.filter((x) => x !== q),
            rand,
          )}`
        : '';
    return `${q}${second}`;
  }
  const code = rand() < skill ? task.reference : pick(codeMutations(task.reference), rand);
  return `${ANSWER_MARKER}\n${code}`;
}

function htmlAgent(task: ColbenchTask, msgs: Msg[], rand: () => number, skill: number): string {
  const turns = msgs.filter((m) => m.role === 'assistant').length;
  const final = turns >= 2 || (turns >= 1 && rand() < 0.5);
  const page = rand() < skill ? task.reference : pick(pageMutations(task.reference), rand);
  const thought = pick(
    [
      'I will lay out the sections the brief implies.',
      'Let me adjust the draft to the feedback.',
      'I will keep the structure and refine the styling.',
    ],
    rand,
  );
  return final
    ? `${thought}\n${OUTPUT_MARKER} ${ANSWER_MARKER}\n${page}`
    : `${thought}\n${OUTPUT_MARKER} Here is a draft; tell me what to change.\n${page}`;
}

/** The agent's latest message in the human's request: our transcript ("[agent]") or the seed's ("assistant:"). */
function lastAgentMessage(prompt: string): string {
  const ours = prompt.lastIndexOf('[agent]\n');
  const seeds = prompt.lastIndexOf('\n\n\n\nassistant:');
  if (ours === -1 && seeds === -1) return '';
  const rest = seeds > ours ? prompt.slice(seeds + '\n\n\n\nassistant:'.length) : prompt.slice(ours + '[agent]\n'.length);
  const end = seeds > ours ? rest.indexOf('\n\n\n\n') : rest.search(/\n\n\[human\]\n|\n\n## /);
  return end === -1 ? rest : rest.slice(0, end);
}

/** Crude stemming, enough to match "race" with "is_racing" and "fees" with "fee". */
const stems = (s: string) =>
  (s.toLowerCase().match(/[a-z]{3,}/g) ?? []).map((w) => w.replace(/(ing|ed|es|s|e)$/, '')).filter((w) => w.length >= 3);

function codeHuman(task: ColbenchTask, prompt: string, rand: () => number): string {
  const asked = new Set(stems(lastAgentMessage(prompt)));
  const lines = task.reference
    .split('\n')
    .slice(1)
    .map((l) => l.trim());
  // A rule = a line with a constant or comparison, read together with the condition it sits under.
  const rules = lines.flatMap((line, i) => {
    if (!/\d|[<>]=?|==/.test(line) || line.startsWith('#')) return [];
    const prev = lines[i - 1] ?? '';
    const when = /^(if|elif)\s+(.*):$/.exec(prev);
    const context = when ? `when ${when[2]}, ${line}` : prev === 'else:' ? `otherwise ${line}` : line;
    return [context.replace(/^(if|elif|while)\s+(.*):$/, 'when $2').replace(/^return\s+/, 'the result is ')];
  });
  if (rules.length === 0) return "I don't know about that. I just need it to work for my situation.";
  const overlap = (r: string) => stems(r).filter((w) => asked.has(w)).length;
  const best = Math.max(...rules.map(overlap));
  const rule = best > 0 ? rules.find((r) => overlap(r) === best)! : pick(rules, rand);
  return `What I know for sure is that ${rule.includes('when') || rule.startsWith('otherwise') ? 'the rule is' : 'it comes down to'} "${rule}" in my case. I don't know more than that about this part.`;
}

const DIFFERENCES = [
  'The header should use a different background colour and be taller.',
  'The main heading needs to be larger and centred.',
  'The sections should be laid out in a different order with more spacing.',
  'The buttons should be rounder and use a stronger colour.',
  'The text blocks are too wide; they should sit in narrower columns.',
  'The footer should be darker and hold the contact details.',
];

function htmlHuman(msgs: Msg[], rand: () => number): string {
  const images = msgs.flatMap((m) => m.images);
  if (images.length < 2) return 'I cannot see a page yet. Please show me a complete draft so I can compare it with what I have in mind.';
  if (images[0] === images[images.length - 1]) return 'This looks exactly like what I have in mind. I have no further changes.';
  const first = pick(DIFFERENCES, rand);
  return `${first} ${pick(
    DIFFERENCES.filter((d) => d !== first),
    rand,
  )}`;
}

function sectionAfter(prompt: string, heading: string): string {
  const at = prompt.indexOf(`${heading}\n`);
  if (at === -1) return '';
  const rest = prompt.slice(at + heading.length + 1);
  const end = rest.indexOf('\n\n## ');
  return end === -1 ? rest : rest.slice(0, end);
}

/** How far a candidate turn moves toward the reference, 0..10: contains it > asks a question > other > answers
 *  with something else. The judge's score and the learned critic's log-prob both follow it. */
function towardReference(text: string, reference: string): number {
  const page = extractHtml(text);
  if (squash(text).includes(squash(reference)) || (page !== null && squash(page) === squash(reference))) return 9;
  if (text.includes(ANSWER_MARKER)) return 2;
  if (text.includes('?')) return 6;
  return 4;
}

function critic(task: ColbenchTask | undefined, prompt: string, rand: () => number): string {
  const reference = task?.reference ?? sectionAfter(prompt, CRITIC_REFERENCE_HEADING);
  const blocks = prompt.split(/^### Candidate (\d+)\n/m);
  const lines: string[] = [];
  for (let i = 1; i + 1 < blocks.length; i += 2) {
    const text = blocks[i + 1].replace(/\n\nScore all \d+ candidates[\s\S]*$/, '');
    const base = towardReference(text, reference);
    const score = Math.min(10, Math.max(0, Math.round((base + (rand() * 3 - 1.5)) * 10) / 10));
    lines.push(`Candidate ${blocks[i]}: ${score}`);
  }
  return lines.join('\n');
}

const CRITIC_CONTEXT = criticContext('');

/**
 * Mean log-prob of the last message (the server's prompt_logprobs). Seen by the learned critic (its first message
 * is the reference, baselines.ts criticContext): higher the more the turn moves toward the reference, by `skill` —
 * training the critic sharpens it. Seen by the policy (no reference): the same for every turn but for seeded noise.
 */
function simulatedMeanLogProb(messages: Msg[], skill: number): number {
  const action = messages.at(-1)?.text ?? '';
  const noise = seededRandom(hashSeed('sim-logprob', JSON.stringify(messages.map((m) => m.text))))() - 0.5;
  const first = messages[0];
  if (first?.role === 'system' && first.text.startsWith(CRITIC_CONTEXT))
    return -3 + (skill * towardReference(action, first.text.slice(CRITIC_CONTEXT.length))) / 3 + 0.2 * noise;
  return -2 + 0.2 * noise;
}

export function createColbenchSimulatedPolicy(o: ColbenchSimulatedPolicyOptions): ColbenchSimulatedPolicy {
  checkOdds({ skill: o.skill });
  const byProblem = new Map(o.tasks.map((t) => [t.problem, t]));
  const findIn = (text: string, heading: string) => byProblem.get(sectionAfter(text, heading));

  const policy = (req: SimulatedRequest): SimulatedReply => {
    const msgs = req.messages.map(readMessage);
    const promptTokens = msgs.reduce((a, m) => a + wordCount(m.text) + 85 * m.images.length, 0);
    const n = Math.max(1, req.n);
    const user = msgs.find((m) => m.role === 'user');
    const seedHtmlHuman = msgs[0]?.role === 'user' && user?.text.startsWith(`${HTML_HUMAN_SYSTEM_PROMPT}\n`);
    const system = msgs[0]?.role === 'system' ? msgs[0].text : seedHtmlHuman ? HTML_HUMAN_SYSTEM_PROMPT : '';
    // Greedy decoding ignores the seed, as a real server does.
    const base = hashSeed(req.model, JSON.stringify(req.messages), req.temperature === 0 ? 'greedy' : String(req.seed ?? 'unseeded'));
    const texts = Array.from({ length: n }, (_, i) => {
      const rand = seededRandom(hashSeed(base, i));
      switch (system) {
        case CODE_AGENT_SYSTEM_PROMPT:
        case HTML_AGENT_SYSTEM_PROMPT:
        case HTML_AGENT_SEED_SYSTEM_PROMPT: {
          const task = user ? byProblem.get(user.text) : undefined;
          if (!task) return 'I am not sure which project this is; could you describe what you need again?';
          return system === CODE_AGENT_SYSTEM_PROMPT ? codeAgent(task, msgs, rand, o.skill) : htmlAgent(task, msgs, rand, o.skill);
        }
        case CODE_HUMAN_SYSTEM_PROMPT: {
          const task = findIn(user?.text ?? '', REQUEST_HEADING);
          const hidden = sectionAfter(user?.text ?? '', HIDDEN_INFO_HEADING);
          if (!task && !hidden) return "I don't know. I can only tell you what I need.";
          return codeHuman(task ?? { id: '?', kind: 'code', problem: '', reference: hidden, testCases: {} }, user?.text ?? '', rand);
        }
        case HTML_HUMAN_SYSTEM_PROMPT:
          return htmlHuman(msgs, rand);
        case CRITIC_SYSTEM_PROMPT:
          return critic(findIn(user?.text ?? '', CRITIC_TASK_HEADING), user?.text ?? '', rand);
        default:
          return 'I am not sure what you are asking.';
      }
    });
    return { texts, promptTokens, completionTokens: texts.map(wordCount) };
  };
  return Object.assign(policy, {
    meanLogProb: (req: { messages: SimulatedRequest['messages'] }) => simulatedMeanLogProb(req.messages.map(readMessage), o.skill),
  });
}
