// SIMULATOR of TOA's policy models and its LLM-judge reward role for dry runs (demo, tests, bench) — not a result.
// One simulated server answers every policy model and the judge; a request names its model in `req.model`, and the
// reply is seeded by the request (hashSeed of model, messages and seed), so a cached or repeated call gets the same
// reply. Each policy model has a base QUALITY in [0, 1]: `quality[model]` when `quality` maps model names, or — when it
// is one number (a served checkpoint's simulated skill) — that number shifted by a seeded offset in ±0.15 drawn from
// the model's name, so differently named checkpoints differ. Every response carries its own quality in a marker
// `[q=0.732]` that the reward side reads back. It recognises the request by its prompt (prompts.ts):
//   generate  — quality = the model's base + a seeded per-task difficulty + seeded noise (sd 0.07);
//   refine    — the earlier answer's quality p plus a seeded step (1 − p)·(0.35·base − 0.12 + 0.15·noise): positive on
//               average for models above base ≈ 0.34 and more often positive the better the model, so refining the
//               best responses with the best models climbs — which is why TOA's search beats random sampling and a
//               parallel ensemble at the same budget, as in the paper;
//   aggregate — (MoA) the best listed response's quality plus a seeded gain (1 − best)·(0.05 + 0.15·base + 0.08·noise);
//   judge     — {"score": 1 + 9·quality ± seeded noise (sd 0.25)}, clamped to 1..10; a share `judgeUnreadable`
//               (default 2 %) of replies have no score, so the failed-reward path runs in every dry run;
//   pairwise  — (recipe.evaluation's judge) the two answers' qualities compared with seeded noise (sd 0.05): AlpacaEval
//               style "A" / "B" for the better one, Arena-Hard style [[A>>B]] … [[B>>A]] by the size of the gap (a tie
//               under 0.03, a clear verdict over 0.15). A reference output has no marker: it counts as 0.5.
// A response without a marker (not this simulator's) counts as quality 0.5. `simulatedScore(text)` reads the marker
// back: the raw reward of a simulated reward-model or scoring-service endpoint (tests and the dry run serve it with
// node:http). Text around the marker is filler that names the question; token counts are word counts.
// It knows the project's own prompt texts only, so a config with a `prompts:` file cannot use it (configs/load.ts).
import { hashSeed, seededRandom } from '../../seeded-random';
import { checkOdds, type SimulatedReply, type SimulatedRequest } from '../shared/simulated-policy';
import { rewardQuestion } from './prompts';
import type { ToaTask } from './tasks';

export interface ToaSimulatedPolicyOptions {
  tasks: readonly ToaTask[];
  /**
   * Base quality in [0, 1] of every policy model, by the name its requests carry; or one skill in [0, 1] that every
   * model shares up to a seeded offset (±0.15) from its name.
   */
  quality: number | Record<string, number>;
  /** Share of judge replies without a readable score (default 0.02). */
  judgeUnreadable?: number;
}

const MARKER = /\[q=(\d+(?:\.\d+)?)\]/;
const MARKERS = new RegExp(MARKER.source, 'g');
const marker = (q: number) => `[q=${q.toFixed(3)}]`;

/** The quality a simulated response carries (its first `[q=…]` marker), or undefined for any other text. */
export function simulatedScore(text: string): number | undefined {
  const m = MARKER.exec(text);
  if (!m) return undefined;
  const q = Number(m[1]);
  return q >= 0 && q <= 1 ? q : undefined;
}

/** Without a marker (a real model's text) a response counts as middling. */
const UNKNOWN_QUALITY = 0.5;

const clamp = (x: number, lo = 0, hi = 1) => Math.min(hi, Math.max(lo, x));
const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (p as { text?: string }).text ?? '').join('') : '';
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const block = (text: string, tag: string) => new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1];
/** A standard normal draw (Box–Muller). */
const gauss = (rand: () => number) => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

const FILLER = (
  'first consider the main point then the details because each step matters and a clear example helps so the ' +
  'reader can check the result while keeping the answer short accurate and complete with one more note on ' +
  'practical use and common mistakes to avoid'
).split(' ');

function filler(rand: () => number, n: number): string {
  return Array.from({ length: n }, () => FILLER[Math.floor(rand() * FILLER.length)]).join(' ');
}

const opening = (s: string, n: number) => s.trim().split(/\s+/).slice(0, n).join(' ');

type Kind = 'generate' | 'refine' | 'aggregate' | 'judge' | 'pairwise';

/** A pairwise judgement of two shown answers by their qualities (see the header). */
function pairwise(user: string, rand: () => number): string {
  const alpaca = user.includes('<answer_A>');
  const [a, b] = alpaca ? ['answer_A', 'answer_B'] : ['assistant_A', 'assistant_B'];
  const gap =
    (simulatedScore(block(user, a) ?? '') ?? UNKNOWN_QUALITY) -
    (simulatedScore(block(user, b) ?? '') ?? UNKNOWN_QUALITY) +
    0.05 * gauss(rand);
  if (alpaca) return gap >= 0 ? 'A' : 'B';
  if (Math.abs(gap) < 0.03) return 'Much the same. [[A=B]]';
  const [win, lose] = gap > 0 ? ['A', 'B'] : ['B', 'A'];
  return `Compared with my own answer… [[${win}${Math.abs(gap) > 0.15 ? '>>' : '>'}${lose}]]`;
}

export function createToaSimulatedPolicy(o: ToaSimulatedPolicyOptions): (req: SimulatedRequest) => SimulatedReply {
  checkOdds(typeof o.quality === 'number' ? { quality: o.quality } : o.quality);
  const unreadable = o.judgeUnreadable ?? 0.02;
  checkOdds({ judgeUnreadable: unreadable });
  const byQuestion = new Map(o.tasks.map((t) => [rewardQuestion(t).trim(), t]));
  const translations = o.tasks.filter((t) => t.kind === 'translation' && t.src);
  /** The task a question (or a translation request ending in its source) belongs to. */
  const taskOf = (q: string | undefined): ToaTask | undefined => {
    if (q === undefined) return undefined;
    const trimmed = q.trim();
    return byQuestion.get(trimmed) ?? translations.find((t) => trimmed.endsWith(t.src!.trim()));
  };
  /** Each task's seeded difficulty shift, in ±0.08. */
  const difficulty = (task: ToaTask | undefined) => (task ? (seededRandom(hashSeed('toa-sim-task', task.id))() - 0.5) * 0.16 : 0);

  const baseOf = (model: string): number => {
    if (typeof o.quality === 'number') return clamp(o.quality + (seededRandom(hashSeed('toa-sim-model', model))() - 0.5) * 0.3);
    const q = o.quality[model];
    if (q === undefined)
      throw new Error(`toa simulated policy: no quality for model "${model}" (known: ${Object.keys(o.quality).join(', ') || 'none'})`);
    return q;
  };

  const reply = (kind: Exclude<Kind, 'judge' | 'pairwise'>, task: ToaTask | undefined, question: string, q: number, rand: () => number) => {
    const about = task?.kind === 'translation' ? opening(task.src!, 6) : opening(task?.instruction ?? question, 8);
    const lead =
      task?.kind === 'translation'
        ? `English rendering of "${about}":`
        : `${kind === 'refine' ? 'Revised answer' : kind === 'aggregate' ? 'Combined answer' : 'Answer'} on "${about}":`;
    // A translation is about as long as its source (lead included); an answer 50–150 words.
    const length =
      task?.kind === 'translation'
        ? Math.max(2, Math.round(words(task.src!) * (0.9 + 0.4 * rand())) - words(lead) - 1)
        : 50 + Math.floor(rand() * 100);
    return `${marker(q)} ${lead} ${filler(rand, length)}.`;
  };

  const judge = (user: string, rand: () => number): string => {
    if (rand() < unreadable) return 'The response addresses the question reasonably well overall.';
    const shown = block(user, 'response') ?? block(user, 'translation') ?? user;
    const q = simulatedScore(shown) ?? UNKNOWN_QUALITY;
    const score = clamp(1 + 9 * q + 0.25 * gauss(rand), 1, 10);
    return JSON.stringify({ score: Math.round(score * 10) / 10 });
  };

  return (req) => {
    const msgs = req.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
    const promptTokens = msgs.reduce((a, m) => a + words(m.content), 0);
    const base = hashSeed(req.model, JSON.stringify(msgs), req.seed ?? 'unseeded');
    const system = msgs.find((m) => m.role === 'system')?.content ?? '';
    const user = msgs.find((m) => m.role === 'user')?.content ?? '';
    const kind: Kind =
      user.includes('<answer_A>') || user.includes('<assistant_A>')
        ? 'pairwise'
        : user.includes('{"score":') && (user.includes('<response>') || user.includes('<translation>'))
          ? 'judge'
          : system.includes('## Response 1:')
            ? 'aggregate'
            : user.includes('<earlier_answer>') || user.includes('<earlier_translation>')
              ? 'refine'
              : 'generate';
    const texts = Array.from({ length: Math.max(1, req.n) }, (_, i) => {
      const rand = seededRandom(hashSeed(base, i));
      if (kind === 'judge') return judge(user, rand);
      if (kind === 'pairwise') return pairwise(user, rand);
      const q0 = baseOf(req.model);
      const question = kind === 'refine' ? (block(user, 'question') ?? block(user, 'source') ?? user) : user;
      const task = taskOf(question);
      const fresh = () => clamp(q0 + difficulty(task) + 0.07 * gauss(rand));
      let q: number;
      if (kind === 'refine') {
        const p = simulatedScore(block(user, 'earlier_answer') ?? block(user, 'earlier_translation') ?? '');
        q = p === undefined ? fresh() : clamp(p + (1 - p) * (0.35 * q0 - 0.12 + 0.15 * gauss(rand)));
      } else if (kind === 'aggregate') {
        const qs = [...system.matchAll(MARKERS)].map((m) => Number(m[1])).filter((x) => x >= 0 && x <= 1);
        const best = qs.length ? Math.max(...qs) : fresh();
        q = clamp(best + (1 - best) * (0.05 + 0.15 * q0 + 0.08 * gauss(rand)));
      } else q = fresh();
      return reply(kind, task, question, q, rand);
    });
    return { texts, promptTokens, completionTokens: texts.map(words) };
  };
}
