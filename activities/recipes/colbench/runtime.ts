// Glue between ColBench's pure logic (this folder) and the generic stages: episodes in generation shards, scoring
// on the sandbox queue (tests run in the Python sandbox; pages rendered in Chromium), metrics, and training data —
// SWEET-RL step pairs (needs the agent and a critic, so built with models) or the MT-DPO / RFT baselines.
import type { ColbenchRecipeConfig } from './config';
import type { Chat } from '../../llm/types';
import {
  AGENT_ROLE,
  type DataBuilder,
  type RecipeRuntime,
  type RowSink,
  type ScoringServices,
  type Split,
  type TrainingData,
} from '../types';
import type { TrainingDataFormat } from '../../data/formats';
import { formatPreferences } from '../../data/formats';
import { agentMessages } from './agent-view';
import { criticPreferencePairs, trajectoryDpoRow, type TrajectoryPair } from './baselines';
import { colbenchDataBuilder } from './data-builder';
import { collectedData, emptyDatasets } from '../collected-data';
import { perTaskBuilder } from '../task-groups';
import { byTaskAndSample } from '../shared/task-order';
import { learnedCritic } from './critic';
import { runColbenchEpisode, trajectoryTokens, type ColbenchTrajectory } from './episode';
import { codeKind, htmlKind, type ColbenchKindRuntime } from './kinds';
import { agentSystemPrompt, COLBENCH_CODE_PROMPTS, COLBENCH_HTML_PROMPTS } from './prompts';
import { colbenchDecoding } from './decoding';
import { recipePrompts } from '../prompt-file';
import { colbenchConversationView } from './report-view';
import { COLBENCH_METRIC_KINDS } from './metrics';
import { foldRecords } from '../metrics-fold';
import type { CodeScore, HtmlScore } from './scoring';
import { pairsFromRanking, rankCandidates, sampleCandidates, turnStates } from './sweet-rl';
import type { ColbenchTask } from './tasks';

/** An episode once the sandbox queue scored it (every evaluation record the metrics read). */
export type ScoredTrajectory<S = CodeScore | HtmlScore> = ColbenchTrajectory & { score: S };
/** A training-split episode as the data builders read it: one never scored ranks as 0. */
export type TrainTrajectory<S = CodeScore | HtmlScore> = ColbenchTrajectory & { score?: S };

export type ColbenchRuntime = RecipeRuntime<ScoredTrajectory, TrainTrajectory, ColbenchTrajectory>;

export function colbenchRuntime(cfg: ColbenchRecipeConfig, seed: number, format: TrainingDataFormat): ColbenchRuntime {
  return cfg.name === 'colbench-code' ? kindRuntime(cfg, codeKind(cfg), seed, format) : kindRuntime(cfg, htmlKind(cfg), seed, format);
}

function kindRuntime<T extends ColbenchTask, S extends CodeScore | HtmlScore>(
  cfg: ColbenchRecipeConfig,
  k: ColbenchKindRuntime<T, S>,
  seed: number,
  format: TrainingDataFormat,
): RecipeRuntime<ScoredTrajectory<S>, TrainTrajectory<S>, ColbenchTrajectory> {
  const kind = k.kind;
  const prompts = recipePrompts(kind === 'code' ? COLBENCH_CODE_PROMPTS : COLBENCH_HTML_PROMPTS, cfg);
  const tasksFor = k.tasks;
  // By id, made once per split: scoring, the critic's rows and the report look a task up per episode and per task.
  const byId = new Map<Split, Map<string, T>>();
  const findTask = (split: Split, id: string): T | undefined => {
    let tasks = byId.get(split);
    if (!tasks) byId.set(split, (tasks = new Map(tasksFor(split).map((t) => [t.id, t]))));
    return tasks.get(id);
  };
  const taskOf = (split: Split, id: string) => {
    const t = findTask(split, id);
    if (!t) throw new Error(`colbench: record for unknown task ${id}`);
    return t;
  };
  const scoreOf = (r: TrainTrajectory<S>) => (r.score ? k.value(r.score) : 0);
  // Trajectory pairs: the seed's backend rule (best reaching 1 vs each lower) for code, every pair apart by ≥ 0.1 for html.
  const pairOptions = kind === 'html' ? ({ mode: 'all-pairs' } as const) : {};
  // Whole-conversation rows (OpenRLHF implicit prompt); the trainers read them as preference rows.
  const trajectoryRows = (pairs: TrajectoryPair[]) => (format === 'verl' ? [] : pairs.map((p) => JSON.stringify(trajectoryDpoRow(p))));
  const dataBuilder = (sink: RowSink) =>
    colbenchDataBuilder<TrainTrajectory<S>>({ seed, format, scoreOf, pairOptions, pairRows: trajectoryRows }, sink);
  // The rows in (task, sample) order, as the baselines lay them out over all episodes.
  const baselineData = (records: TrainTrajectory<S>[]): TrainingData =>
    collectedData(dataBuilder, [...records].sort(byTaskAndSample), emptyDatasets([AGENT_ROLE]));

  return {
    taskCount: (split) => tasksFor(split).length,
    samplesPerTask: (split) => (split === 'eval' ? cfg.evalSamples : cfg.trainSamples),
    runTask: ({ split, taskIndex, sampleIndex, chats, services }) =>
      runColbenchEpisode({
        task: tasksFor(split)[taskIndex],
        kind,
        prompts,
        agent: chats[AGENT_ROLE],
        human: chats.human,
        render: services.render,
        saveImage: services.saveImage,
        maxTurns: cfg.maxTurns,
        agentDecoding: colbenchDecoding(cfg, split).agent,
        humanDecoding: colbenchDecoding(cfg, split).human,
        sampleIndex,
        seed,
        compat: cfg.compat,
      }),
    recordTokens: trajectoryTokens,
    scoreRecords: async (split, trajectories, services: ScoringServices) => {
      const slots = k.lanes;
      const out: ScoredTrajectory<S>[] = new Array(trajectories.length);
      let next = 0;
      // One lane per sandbox slot: each slot is its own uid, so process limits never collide.
      const lane = async (slot: number) => {
        while (next < trajectories.length) {
          const i = next++;
          const r = trajectories[i];
          const score = await k.score(r, taskOf(split, r.taskId), services, slot);
          out[i] = { ...r, score };
        }
      };
      await Promise.all(Array.from({ length: Math.min(slots, trajectories.length) }, (_, s) => lane(s)));
      return out;
    },
    // The fold takes a task's episodes together (best-of-k); records in memory may come in any order.
    metrics: (records) => foldRecords(k.metricsFold(), [...records].sort(byTaskAndSample)),
    metricsFold: k.metricsFold,
    metricKinds: COLBENCH_METRIC_KINDS,
    buildData: baselineData,
    dataBuilder,
    ...(cfg.data.method === 'sweet-rl'
      ? {
          buildDataWithModels: async (
            trajectories: TrainTrajectory<S>[],
            chats: Record<string, Chat>,
            logProbs: Record<string, Chat> = {},
          ): Promise<TrainingData> => {
            const learned = cfg.data.critic === 'learned';
            if (learned && !(logProbs.critic && logProbs[AGENT_ROLE]))
              throw new Error('colbench: the learned critic ranks with log-probs of the critic and the agent, and none were given');
            const scorer = learned ? learnedCritic({ critic: logProbs.critic, policy: logProbs[AGENT_ROLE] }) : undefined;
            const states = turnStates(trajectories, tasksFor('train'), { fraction: cfg.data.fraction });
            // Every state's candidates first, then every ranking: a log-prob scorer gets all its calls at once.
            const sampled = await Promise.all(
              states.map((state) =>
                sampleCandidates(state, chats[AGENT_ROLE], cfg.data.candidates, {
                  temperature: cfg.data.candidateTemperature,
                  topP: cfg.topP,
                  maxTokens: cfg.maxTokens,
                }),
              ),
            );
            const ranked = await Promise.all(
              states.map((state, i) =>
                rankCandidates(state, sampled[i].texts, chats.critic, {
                  prompts,
                  seed,
                  decoding: { maxTokens: cfg.data.criticMaxTokens },
                  ...(scorer ? { scorer } : {}),
                }),
              ),
            );
            const pairs = pairsFromRanking(ranked, cfg.data.pairsPerTurn, seed);
            const base = baselineData(trajectories);
            return {
              byRole: { [AGENT_ROLE]: { sft: base.byRole[AGENT_ROLE].sft, dpo: formatPreferences(pairs, format) } },
              counts: {
                turn_states: states.length,
                step_pairs: pairs.length,
                unscored_states: ranked.filter((r) => r.unscored).length,
                // Candidates ranked by the learned critic's log-prob advantage (0 with a judge).
                logprob_ranked: learned ? ranked.reduce((a, r) => a + r.ranked.length, 0) : 0,
                sft_examples: base.counts.sft_examples,
              },
            };
          },
          // The learned critic's rows: the trajectory pairs with the reference in front (baselines.ts), made per task
          // as the episodes stream past.
          scorerDataBuilder: (sink: RowSink): DataBuilder<TrainTrajectory<S>> => {
            let pairs = 0;
            return perTaskBuilder<TrainTrajectory<S>>(
              'colbench critic data',
              (task) => {
                const found = criticPreferencePairs(task, task.map(scoreOf), [taskOf('train', task[0].taskId)], seed, pairOptions);
                for (const line of trajectoryRows(found)) sink.row('critic', 'dpo', line);
                pairs += found.length;
              },
              () => ({ critic_pairs: pairs }),
            );
          },
        }
      : {}),
    describeRecord: (split, r) => colbenchConversationView(r, findTask(split, r.taskId)),
    probePrompts: (n) =>
      tasksFor('eval')
        .slice(0, n)
        .map((t) => agentMessages(agentSystemPrompt(prompts), t.problem, [])),
  };
}
