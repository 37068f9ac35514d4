// Glue between TOA's logic (this folder) and the generic stages: on the eval split the student answers each prompt
// once (scored by the reward role) and the compared methods search it at the same N; on the train split the
// configured method builds each prompt's pool of N scored responses, from which the student's data is drawn.
import type { TrainingDataFormat } from '../../data/formats';
import type { Chat } from '../../llm/types';
import { hashSeed } from '../../seeded-random';
import type { RecipeRuntime, RowSink, Split } from '../types';
import { collectedData, emptyDatasets } from '../collected-data';
import { byTaskAndSample } from '../shared/task-order';
import type { Method, PlanParams } from './baselines';
import { JUDGE_ROLE, KIWI_ROLE, policyRole, policyRoles, REWARD_ROLE, STUDENT_ROLE, type ToaRecipeConfig } from './config';
import { judgeAgainstReference, type PairJudgement } from './evaluation';
import { judgesPairs } from './evaluation-config';
import { loadReferences, referenceFor } from './references';
import { methodTemperature, searchSettings, STUDENT_TEMPERATURE } from './settings';
import { toaDataBuilder } from './data-builder';
import { rewardVsFlops, TOA_METRIC_KINDS, toaMetrics, toaMetricsFold } from './metrics';
import { generatePrompt, TOA_PROMPTS } from './prompts';
import { recipePrompts } from '../prompt-file';
import { recordTokens, summarizeSearch, type ToaBuildRecord, type ToaEvalRecord } from './records';
import { toaRecordView } from './report-view';
import { scoreResponse } from './reward';
import { answerAndScore, runSearch } from './run-search';
import { readToaSplit, type ToaTask } from './tasks';

/** The planner's models and samples: single-agent methods spend the whole budget N on one policy. */
export function planParams(cfg: ToaRecipeConfig, method: Method, seed: number): PlanParams {
  const single = method === 'random' || method === 'prs';
  return {
    models: single ? [policyRole(cfg.singlePolicy)] : policyRoles(cfg),
    samples: single ? cfg.samples * cfg.policies : cfg.samples,
    ...cfg.search,
    ...searchSettings(cfg),
    layers: cfg.moaLayers,
    seed,
  };
}

export function toaRuntime(cfg: ToaRecipeConfig, seed: number, format: TrainingDataFormat): RecipeRuntime<ToaEvalRecord, ToaBuildRecord> {
  const tasksFor = (split: Split): ToaTask[] => readToaSplit(cfg, split, cfg.task);
  // By id, built once per split: the data builder looks up every record's task (a million of them at scale).
  const byId: Partial<Record<Split, Map<string, ToaTask>>> = {};
  const taskOf = (split: Split, id: string) => (byId[split] ??= firstById(tasksFor(split))).get(id);
  const decoding = (temperature: number) => ({ temperature, topP: cfg.topP, maxTokens: cfg.maxTokens });
  const prompts = recipePrompts(TOA_PROMPTS, cfg);
  const references = judgesPairs(cfg.evaluation) && cfg.evaluation?.references ? loadReferences(cfg.evaluation.references) : undefined;
  /** recipe.evaluation: each text judged against the task's reference by the judge role, side by side. */
  const judgeAll = async (task: ToaTask, texts: Record<string, string>, chats: Record<string, Chat>, key: string) => {
    const ev = cfg.evaluation;
    const reference = references && referenceFor(references, task);
    if (!ev || !judgesPairs(ev) || reference === undefined) return undefined;
    const who = Object.keys(texts);
    const judged = await Promise.all(
      who.map((w) =>
        judgeAgainstReference({
          judge: chats[JUDGE_ROLE],
          task,
          text: texts[w],
          reference,
          cfg: ev,
          prompts,
          seed,
          key: `${key}/judge/${w}`,
        }),
      ),
    );
    return Object.fromEntries(who.map((w, i) => [w, judged[i]])) as Record<string, PairJudgement>;
  };
  const search = (task: ToaTask, method: Method, chats: Record<string, Chat>, key: string) =>
    runSearch({
      task,
      method,
      params: planParams(cfg, method, hashSeed(seed, task.id, key)),
      chats,
      reward: chats[REWARD_ROLE],
      decoding: decoding(methodTemperature(cfg, method)),
      judge: cfg.judge,
      prompts,
      topK: cfg.topK,
      flops: cfg.flops,
      seed,
      key,
    });
  /** recipe.evaluation.kiwi: each translation scored on (source, text) by the KIWI role, as the reward role scores. */
  const kiwiAll = async (task: ToaTask, texts: Record<string, string>, chats: Record<string, Chat>, key: string) => {
    if (!cfg.evaluation?.kiwi) return undefined;
    const who = Object.keys(texts);
    const scored = await Promise.all(
      who.map((w) => scoreResponse(chats[KIWI_ROLE], task, texts[w], { key: `${key}/kiwi/${w}`, maxTokens: 1, parseRetries: 0, prompts })),
    );
    return Object.fromEntries(who.map((w, i) => [w, 'reward' in scored[i] ? { score: scored[i].reward } : { failed: scored[i].failed }]));
  };
  const judging = { bootstrap: cfg.evaluation?.bootstrap ?? 100, seed };
  const dataBuilder = (sink: RowSink) => toaDataBuilder((id) => taskOf('train', id), { ...cfg.data, prompts }, format, sink);
  return {
    // Each task run is one tree search over the models (TOA paper §3), not one conversation.
    progressUnit: 'searches',
    taskCount: (split) => tasksFor(split).length,
    samplesPerTask: (split) => (split === 'eval' ? cfg.evalSamples : cfg.trainSamples),
    runTask: async ({ split, taskIndex, sampleIndex, chats }): Promise<ToaEvalRecord | ToaBuildRecord> => {
      const task = tasksFor(split)[taskIndex];
      const key = `${task.id}/s${sampleIndex}`;
      if (split === 'train') return { kind: 'build', taskId: task.id, sampleIndex, search: await search(task, cfg.method, chats, key) };
      const { text, usage, scored } = await answerAndScore({
        who: 'the student',
        policy: chats[STUDENT_ROLE],
        reward: chats[REWARD_ROLE],
        task,
        messages: generatePrompt(prompts, task),
        decoding: { ...decoding(cfg.temperature ?? STUDENT_TEMPERATURE), seed: hashSeed(seed, task.id, key, 'student') },
        judge: cfg.judge,
        prompts,
        key: `${key}/student`,
      });
      const methods: ToaEvalRecord['methods'] = {};
      // One prompt's compared searches run side by side: each is sequential in itself.
      const runs = await Promise.all(cfg.compare.map((m) => search(task, m, chats, key)));
      cfg.compare.forEach((m, i) => {
        methods[m] = summarizeSearch(runs[i]);
      });
      // The student's answer is judged even when empty (a loss, as alpaca_eval counts an empty output); a method
      // whose every play failed has no best text to judge.
      const texts: Record<string, string> = { [STUDENT_ROLE]: text };
      for (const [m, s] of Object.entries(methods)) if (s?.best?.text) texts[m] = s.best.text;
      const [judged, kiwi] = await Promise.all([judgeAll(task, texts, chats, key), kiwiAll(task, texts, chats, key)]);
      return {
        kind: 'eval',
        taskId: task.id,
        sampleIndex,
        student: { text, ...('reward' in scored ? { reward: scored.reward } : { failed: scored.failed }), usage },
        methods,
        ...(judged ? { judged } : {}),
        ...(kiwi ? { kiwi } : {}),
      };
    },
    recordTokens,
    metrics: (records) => toaMetrics(records, judging),
    metricsFold: () => toaMetricsFold(judging),
    metricKinds: TOA_METRIC_KINDS,
    reportFigures: rewardVsFlops,
    buildData: (built) => collectedData(dataBuilder, [...built].sort(byTaskAndSample), emptyDatasets([STUDENT_ROLE])),
    dataBuilder,
    describeRecord: (split, record) => toaRecordView(record, taskOf(split, record.taskId)),
    probePrompts: (n) =>
      tasksFor('eval')
        .slice(0, n)
        .map((t) => generatePrompt(prompts, t)),
  };
}

/** Each id's first task, as a search from the start finds it. */
function firstById(tasks: readonly ToaTask[]): Map<string, ToaTask> {
  const m = new Map<string, ToaTask>();
  for (const t of tasks) if (!m.has(t.id)) m.set(t.id, t);
  return m;
}
