// TOA's evaluation end to end at the recipe's runtime, every role a local OpenAI-compatible server reached through
// the project's client (createChat: request cache, limits, retries): the student answers, the compared methods search
// at the same N, each method's best text is KEPT in the record, and the student's text and every best text are
// judged against the reference output the same way — AlpacaEval-style (one game, shuffled order) and Arena-Hard-style
// (both orders) — into win rate, LC win rate and the Arena-Hard interval. The policies' temperatures follow the
// preset (UltraFeedback: 0.8 for TOA's search, 0.7 for the baselines). Translations are scored by a KIWI service
// (the WMT table's evaluation) on (source, translation).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmConfig } from '../../../../../contracts/config';
import { requestCacheFor } from '../../../../../activities/llm/cache';
import { createChat } from '../../../../../activities/llm/client';
import { newUsageCounter } from '../../../../../activities/llm/usage';
import type { Chat } from '../../../../../activities/llm/types';
import { json, startServer, type TestServer } from '../../../../helpers/recording-server';
import {
  type PolicyRequest,
  type RunningServer,
  startOpenAICompatibleServer,
} from '../../../../../activities/serving/openai-compatible-server';
import { toaRecipeSchema } from '../../../../../activities/recipes/toa/config';
import type { ToaEvalRecord } from '../../../../../activities/recipes/toa/records';
import { toaRuntime } from '../../../../../activities/recipes/toa/runtime';
import { judgeAgainstReference } from '../../../../../activities/recipes/toa/evaluation';
import { DEFAULT_TOA_PROMPTS } from '../../../../../activities/recipes/toa/prompts';
import { createToaSimulatedPolicy } from '../../../../../activities/recipes/toa/simulated-policy';

const LLM: LlmConfig = { requestTimeoutSeconds: 10, callRetries: 2, maxRetryDelaySeconds: 1, outageToleranceSeconds: 0 };
const contentOf = (req: PolicyRequest) => req.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
const between = (s: string, tag: string) => new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(s)?.[1] ?? '';

/** A policy whose answers grow with the sampling seed: different texts, different lengths. */
const policyReply = (name: string) => (req: PolicyRequest) => {
  const reps = 1 + ((req.seed ?? 0) % 7);
  const text = `${name} says ${'more '.repeat(reps)}`.trim();
  return { texts: [text], promptTokens: 10, completionTokens: [reps + 2] };
};
/** The reward judge: 1–10 by length, so the longest response of a search is its best. */
const rewardJudge = (req: PolicyRequest) => {
  const response = between(contentOf(req), 'response');
  return { texts: [JSON.stringify({ score: Math.min(10, 1 + response.length / 10) })], promptTokens: 10, completionTokens: [5] };
};
/** The pairwise judge: the longer answer wins, clearly when twice as long; a tie on equal lengths. */
const pairJudge = (req: PolicyRequest) => {
  const c = contentOf(req);
  const alpaca = c.includes('<answer_A>');
  const [a, b] = alpaca ? [between(c, 'answer_A'), between(c, 'answer_B')] : [between(c, 'assistant_A'), between(c, 'assistant_B')];
  let text: string;
  if (alpaca) text = a.length >= b.length ? 'A' : 'B';
  else if (a.length === b.length) text = 'Both fine. [[A=B]]';
  else {
    const [win, lose] = a.length > b.length ? ['A', 'B'] : ['B', 'A'];
    text = `My own answer first… Verdict: [[${win}${Math.max(a.length, b.length) >= 2 * Math.min(a.length, b.length) ? '>>' : '>'}${lose}]]`;
  }
  return { texts: [text], promptTokens: 20, completionTokens: [5] };
};

const servers: Array<RunningServer | TestServer> = [];
const requests: Record<string, PolicyRequest[]> = {};
let chats: Record<string, Chat>;
let dir: string;
const REFERENCE = 'the reference answer, of middling length';

async function serve(role: string, reply: (req: PolicyRequest) => { texts: string[]; promptTokens: number; completionTokens: number[] }) {
  requests[role] = [];
  const s = await startOpenAICompatibleServer({
    modelName: `${role}-model`,
    policy: (req) => {
      requests[role].push(req);
      return reply(req);
    },
  });
  servers.push(s);
  return createChat({
    endpoint: { baseUrl: `${s.url}/v1`, model: `${role}-model`, cacheId: role, maxConcurrency: 4 },
    cache: requestCacheFor({ stateDir: dir }),
    llm: LLM,
    usage: newUsageCounter(),
    role,
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toa-eval-'));
  chats = {
    policy_0: await serve('policy_0', policyReply('p0')),
    policy_1: await serve('policy_1', policyReply('p1')),
    student: await serve('student', policyReply('student')),
    reward: await serve('reward', rewardJudge),
    judge: await serve('judge', pairJudge),
  };
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function runtimeFor(o: { compare: string[]; preset?: string; evaluation?: boolean }) {
  return runtimeOf({ compare: o.compare, preset: o.preset, evaluation: o.evaluation === false ? undefined : { bootstrap: 50 } });
}

function runtimeOf(o: { compare: string[]; preset?: string; evaluation?: Record<string, unknown>; task?: 'translation' }) {
  const tasks = path.join(dir, 'tasks.jsonl');
  writeFileSync(tasks, `${['q1', 'q2', 'q3'].map((id) => JSON.stringify({ id, instruction: `Question ${id}?` })).join('\n')}\n`);
  const refs = path.join(dir, 'references.json');
  // AlpacaEval's reference-outputs shape: matched to the tasks by instruction text.
  writeFileSync(
    refs,
    JSON.stringify(
      ['q1', 'q2', 'q3'].map((id, i) => ({
        instruction: `Question ${id}?`,
        output: REFERENCE,
        generator: 'gpt4_turbo',
        instruction_difficulty: i / 2,
      })),
    ),
  );
  const translations = path.join(dir, 'translations.jsonl');
  writeFileSync(
    translations,
    `${['t1', 't2'].map((id) => JSON.stringify({ id, instruction: 'Translate.', src_lang: 'de', src: `Satz ${id}.` })).join('\n')}\n`,
  );
  const cfg = toaRecipeSchema.parse({
    name: 'toa',
    task: o.task ?? 'instruction',
    evalTasks: o.task ? translations : tasks,
    policies: 2,
    samples: 3,
    compare: o.compare,
    ...(o.preset ? { preset: o.preset } : {}),
    search: { tau: 2 },
    flops: { policy_0: { params: 1e9 }, policy_1: { params: 1e9 } },
    ...(o.evaluation ? { evaluation: { references: refs, ...o.evaluation } } : {}),
  });
  return toaRuntime(cfg, 7, 'trl');
}

describe('TOA evaluation against reference outputs, through the project client', () => {
  let records: ToaEvalRecord[];
  beforeAll(async () => {
    const rt = runtimeFor({ compare: ['toa', 'ensemble'], preset: 'ultrafeedback' });
    records = [];
    for (let i = 0; i < 3; i++)
      records.push((await rt.runTask({ split: 'eval', taskIndex: i, sampleIndex: 0, chats, services: {} })) as ToaEvalRecord);
  });

  it("keeps each compared method's best text: the response with the best reward, as the policy wrote it", () => {
    for (const r of records)
      for (const m of ['toa', 'ensemble'] as const) {
        const best = r.methods[m]!.best!;
        expect(best.text).toMatch(/^p[01] says( more)+$/);
        // The reward judge scores by length: no response of the search is longer than the kept best.
        expect(best.reward).toBe(Math.min(10, 1 + best.text!.length / 10));
      }
  });

  it('judges the student and every best text against the reference, both ways, as the judge said', () => {
    for (const r of records) {
      expect(Object.keys(r.judged!).sort()).toEqual(['ensemble', 'student', 'toa']);
      const texts = { student: r.student.text, toa: r.methods.toa!.best!.text!, ensemble: r.methods.ensemble!.best!.text! };
      for (const [who, text] of Object.entries(texts)) {
        const j = r.judged![who];
        expect(j.chars).toBe(text.length);
        expect(j.referenceChars).toBe(REFERENCE.length);
        expect(j.difficulty).toBe(Number(r.taskId.slice(1)) / 2 - 0.5);
        // AlpacaEval game: 1 when the text is the longer one, whichever side it was shown on.
        expect(j.alpaca).toEqual({ value: text.length >= REFERENCE.length ? 1 : 0 });
        // Arena-Hard games, from the text's side: the same verdict in both orders.
        const side = text.length === REFERENCE.length ? 0 : text.length > REFERENCE.length ? 1 : -1;
        const strength = Math.max(text.length, REFERENCE.length) >= 2 * Math.min(text.length, REFERENCE.length) ? 2 : 1;
        expect(j.arena).toEqual([{ value: side * strength || 0 }, { value: side * strength || 0 }]);
      }
    }
    // Every judged text was shown to the Arena-Hard judge once as A and once as B.
    const arena = requests.judge.filter((q) => contentOf(q).includes('<assistant_A>'));
    expect(arena.length).toBe(records.length * 3 * 2);
    const asA = arena.filter((q) => between(contentOf(q), 'assistant_A') !== REFERENCE).length;
    expect(asA).toBe(records.length * 3);
    // AlpacaEval's order is shuffled: the reference is not always first.
    const alpaca = requests.judge.filter((q) => contentOf(q).includes('<answer_A>'));
    expect(alpaca.length).toBe(records.length * 3);
    expect(new Set(alpaca.map((q) => between(contentOf(q), 'answer_A') === REFERENCE)).size).toBe(2);
    expect(requests.judge.every((q) => q.temperature === 0)).toBe(true);
  });

  it("the report's conversation view shows each method's best text beside the student's, with its verdict", () => {
    const rt = runtimeFor({ compare: ['toa', 'ensemble'], preset: 'ultrafeedback' });
    const r = records[0];
    const view = rt.describeRecord('eval', r);
    expect(view.turns.map((t) => [t.speaker, t.text])).toEqual([
      ['student', r.student.text],
      ['toa', r.methods.toa!.best!.text],
      ['ensemble', r.methods.ensemble!.best!.text],
    ]);
    const says = (who: string) =>
      (r.judged![who].alpaca as { value: number }).value === 1 ? 'preferred to the reference' : 'reference preferred';
    for (const t of view.turns) expect(t.note).toContain(says(t.speaker));
  });

  it('reports win rate, LC win rate and the Arena-Hard interval per judged text, student included', () => {
    const rt = runtimeFor({ compare: ['toa', 'ensemble'], preset: 'ultrafeedback' });
    const m = rt.metrics(records);
    for (const who of ['student', 'toa', 'ensemble']) {
      const wins = records.filter((r) => (r.judged![who].alpaca as { value: number }).value === 1).length;
      expect(m[`${who}/alpaca_win_rate`]).toBeCloseTo((100 * wins) / records.length, 6);
      expect(m[`${who}/alpaca_lc_win_rate`]).toBeGreaterThanOrEqual(0);
      expect(m[`${who}/arena_ci_low`]).toBeLessThanOrEqual(m[`${who}/arena_win_rate`]);
      expect(m[`${who}/arena_ci_high`]).toBeGreaterThanOrEqual(m[`${who}/arena_win_rate`]);
    }
    expect(m['student/avg_chars']).toBeCloseTo(records.reduce((a, r) => a + r.student.text.length, 0) / records.length, 6);
    // Folded record by record (evaluation reads shard by shard), the same metrics, keys in the same order.
    const fold = rt.metricsFold();
    for (const r of records) fold.add(r);
    const folded = fold.result();
    expect(folded).toEqual(m);
    expect(Object.keys(folded)).toEqual(Object.keys(m));
  });

  it("samples at the preset's temperatures: UltraFeedback's 0.8 for TOA's search, 0.7 for the baselines and the student", () => {
    const policyTemps = new Set([...requests.policy_0, ...requests.policy_1].map((q) => q.temperature));
    expect([...policyTemps].sort()).toEqual([0.7, 0.8]);
    expect(new Set(requests.student.map((q) => q.temperature))).toEqual(new Set([0.7]));
  });

  it("an empty student answer is judged too — a loss, not left out of the student's win rate", async () => {
    const silent = await serve('silent-student', () => ({ texts: [''], promptTokens: 5, completionTokens: [0] }));
    const rt = runtimeFor({ compare: [] });
    const r = (await rt.runTask({
      split: 'eval',
      taskIndex: 1,
      sampleIndex: 2,
      chats: { ...chats, student: silent },
      services: {},
    })) as ToaEvalRecord;
    expect(r.student.failed).toMatch(/empty/);
    expect(r.judged!.student).toMatchObject({ chars: 0, alpaca: { value: 0 }, arena: [{ value: -2 }, { value: -2 }] });
    expect(rt.metrics([r])['student/alpaca_win_rate']).toBe(0);
  });

  it('without recipe.evaluation nothing is judged', async () => {
    const before = requests.judge.length;
    const r = (await runtimeFor({ compare: ['toa'], evaluation: false }).runTask({
      split: 'eval',
      taskIndex: 0,
      sampleIndex: 1,
      chats,
      services: {},
    })) as ToaEvalRecord;
    expect(r.judged).toBeUndefined();
    expect(r.methods.toa!.best!.text).toBeTruthy();
    expect(requests.judge.length).toBe(before);
  });

  it('translations scored by the KIWI role on (source, translation): every text, the student included', async () => {
    const kiwiScore = (src: string, mt: string) => Number((mt.length / (src.length + mt.length)).toFixed(6));
    const kiwi = await startServer((req, res) => {
      const data = (req.body as { inputs: { data: Array<{ src: string; mt: string }> } }).inputs.data;
      json(res, 200, { scores: data.map((d) => kiwiScore(d.src, d.mt)) });
    });
    servers.push(kiwi);
    const withKiwi = {
      ...chats,
      kiwi: createChat({
        endpoint: { baseUrl: kiwi.url, model: 'wmt23-cometkiwi-da-xxl', cacheId: 'kiwi', maxConcurrency: 2, api: 'score' },
        cache: requestCacheFor({ stateDir: dir }),
        llm: LLM,
        usage: newUsageCounter(),
      }),
    };
    const rt = runtimeOf({
      compare: ['toa', 'ensemble'],
      task: 'translation',
      evaluation: { kiwi: true, alpacaEval: false, arenaHard: false },
    });
    const records: ToaEvalRecord[] = [];
    for (let i = 0; i < 2; i++)
      records.push((await rt.runTask({ split: 'eval', taskIndex: i, sampleIndex: 0, chats: withKiwi, services: {} })) as ToaEvalRecord);
    for (const r of records) {
      const src = `Satz ${r.taskId}.`;
      expect(r.judged).toBeUndefined();
      expect(r.kiwi).toEqual({
        student: { score: kiwiScore(src, r.student.text) },
        toa: { score: kiwiScore(src, r.methods.toa!.best!.text!) },
        ensemble: { score: kiwiScore(src, r.methods.ensemble!.best!.text!) },
      });
    }
    expect(
      kiwi.received.every((q) => (q.body as { inputs: { data: Array<{ src: string }> } }).inputs.data[0].src.startsWith('Satz t')),
    ).toBe(true);
    const m = rt.metrics(records);
    expect(m['student/kiwi']).toBeCloseTo(
      records.reduce((a, r) => a + (r.kiwi!.student as { score: number }).score, 0) / records.length,
      9,
    );
    // The WMT preset for a translation task: tau 1, alpha 0.05 (oceanypt/TOA bash/exp_nmt).
    expect(m['toa/kiwi']).toBeGreaterThan(0);
  });
});

describe("the dry-run simulator's pairwise judge", () => {
  it('prefers the better simulated answer over a reference (quality 0.5), in both games and either order', async () => {
    const task = { id: 'q1', kind: 'instruction' as const, instruction: 'Question q1?' };
    const judge = await serve('sim-judge', createToaSimulatedPolicy({ tasks: [task], quality: 0.5 }));
    const cfg = { alpacaEval: true, arenaHard: true, maxTokens: 64, parseRetries: 0, bootstrap: 10, kiwi: false };
    const judged = (text: string, key: string) =>
      judgeAgainstReference({
        judge,
        task,
        text,
        reference: { output: 'a plain reference' },
        cfg,
        prompts: DEFAULT_TOA_PROMPTS,
        seed: 1,
        key,
      });
    for (let i = 0; i < 4; i++) {
      const good = await judged(`[q=0.900] Answer on "Question q1?": a fine answer ${i}.`, `good-${i}`);
      expect(good.alpaca).toEqual({ value: 1 });
      expect(good.arena).toEqual([{ value: 2 }, { value: 2 }]);
      const poor = await judged(`[q=0.100] Answer on "Question q1?": a weak answer ${i}.`, `poor-${i}`);
      expect(poor.alpaca).toEqual({ value: 0 });
      expect(poor.arena).toEqual([{ value: -2 }, { value: -2 }]);
    }
  });
});
