// verl GRPO and PPO with multi-turn rollouts (trainer: {kind: verl, method: grpo | ppo}), for recipes that declare online RL
// (activities/recipes/types.ts OnlineRl: its rollout reaches this adapter as job.onlineRl). The defaults below cite
// verl-recipe's collabllm/train_rl_collabllm.sh, the multi-turn GRPO run this adapter was written against. The
// recipe's reward service runs beside the trainer (activities/training/online-reward.ts); ./verl_collab_loop.py
// plugs it into verl:
//   prepare: the recipe's converter (OnlineRlRollout.converter) turns the iteration's `rl` rows into
//            rl_train.parquet and rl_validation.parquet, each row naming the recipe's agent loop and interaction.
//   train:   python -m verl.trainer.main_ppo with Hydra overrides. verl samples `rolloutN` responses per prompt; the
//            recipe's agent loop (agent_loop.yaml) forks `numRepeatRollouts` futures after each, in which the policy
//            being trained answers and our interaction class (CollabLoopInteraction, under the recipe's interaction
//            name in interaction.yaml) asks the service for the user's turns; our reward manager (collab_loop) sends
//            the futures to the service's /score and puts the reward on the response's last token.
//   export:  ./verl_export.py --subdir actor merges the actor of the last checkpoint into hfOutput.
// PPO is the same run with verl's GAE estimator (algorithm.adv_estimator=gae) and a critic (a value model started from
// `ppo.criticPath`, by default the policy's own checkpoint, as verl's examples/ppo_trainer scripts do). The seed's PPO
// (microsoft/CollabLLM scripts/train/ppo.py, marked "IN PROGRESS": TRL's old PPOTrainer with a value head on the LoRA
// policy and each response's multiturn-aware reward as its scalar reward) runs with lr 5e-6. The critic is trained
// beside the actor and dropped at export.
// Resume: trainer.resume_mode=auto; main_ppo writes global_step_N/{actor,critic?,data.pt}, then the tracker file.
// Written against verl bcb6386 with verl-recipe's collabllm folder (its REQUIRED_VERL.txt); without a GPU here, verl
// 0.6.1 composes and validates this argv and loads the plug-ins (tests/engines/verl-config.test.ts), and the unit
// tests run them against a stand-in main_ppo (tests/fixtures/stand-in-verl). verl ≥ 0.8 has no interactions.
import path from 'node:path';
import { z } from 'zod';
import { positiveInt } from '../../../contracts/config-fields';
import type { CommonTrainOptions, TrainJob, TrainStep } from './types';
import { onlinePrepareStep, RL_TRAIN_PARQUET, RL_VALIDATION_PARQUET } from './online-prepare';
import { PLUGIN_DIR, PLUGIN_FILE, PLUGIN_MODULE, VERL_EXPORT } from './verl-python';

// Every default below is train_rl_collabllm.sh's (the descriptions say "as the script" rather than repeat the number).
export const verlGrpoOptionsSchema = z.strictObject({
  rolloutN: z
    .number()
    .int()
    .min(2)
    .default(8)
    .meta({ description: 'Responses sampled per prompt: the GRPO group (actor_rollout_ref.rollout.n).' }),
  temperature: z
    .number()
    .gt(0)
    .max(2)
    .default(1)
    .meta({ description: 'Sampling temperature of the responses and of the policy in the futures.' }),
  numRepeatRollouts: positiveInt.default(3).meta({ description: 'Futures per response (multi_turn.num_repeat_rollouts).' }),
  maxUserTurns: positiveInt.default(2).meta({ description: "A future's cap on user turns." }),
  maxAssistantTurns: positiveInt.default(3).meta({
    description:
      "A future's cap on assistant turns, counting the response: by default a future is user, assistant, user (the third assistant turn meets the cap before it is kept).",
  }),
  maxPromptLength: positiveInt.default(8196).meta({ description: 'data.max_prompt_length: longer prompts are filtered out.' }),
  maxResponseLength: positiveInt.default(2048).meta({ description: 'data.max_response_length.' }),
  trainBatchSize: positiveInt.default(16).meta({ description: 'Prompts per step (data.train_batch_size).' }),
  ppoMiniBatchSize: positiveInt.default(8).meta({ description: 'Prompts per actor update (ppo_mini_batch_size).' }),
  maxTokensPerGpu: positiveInt
    .default(24000)
    .meta({ description: 'Dynamic batch size: tokens per GPU per micro batch (ppo_max_token_len_per_gpu).' }),
  klLossCoef: z.number().min(0).default(0.001).meta({ description: 'KL loss (low_var_kl) coefficient; no KL in the reward.' }),
  gpuMemoryUtilization: z.number().gt(0).max(1).default(0.7).meta({ description: "The rollout vLLM's memory share." }),
  tensorParallel: positiveInt.default(1).meta({ description: "The rollout vLLM's tensor parallelism." }),
  offload: z.boolean().default(true).meta({ description: 'FSDP offload of actor parameters and optimizer, and of the reference model.' }),
  testFreq: z
    .number()
    .int()
    .min(-1)
    .default(-1)
    .meta({ description: 'Validate every N steps (trainer.test_freq); -1: never — the loop evaluates every iteration.' }),
  agentLoop: z.string().min(1).optional().meta({
    description:
      "The agent loop class that plays the futures; default: the recipe's (OnlineRlRollout.agentLoop). Importable when `recipePath` (or PYTHONPATH) holds it.",
  }),
  recipePath: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "A verl checkout whose `recipe/` submodule holds the recipe's agent loop (added to PYTHONPATH)." }),
});

/** method ppo: the critic and the responses per prompt; the rollout options above apply to ppo too. */
export const verlPpoOptionsSchema = z.strictObject({
  rolloutN: positiveInt
    .default(1)
    .meta({ description: "Responses sampled per prompt: GAE needs no group, so verl's PPO examples sample 1." }),
  criticPath: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "The critic's initial weights (critic.model.path); default: the checkpoint being trained." }),
  criticLearningRate: z.number().positive().default(1e-5).meta({ description: "critic.optim.lr; verl's critic.yaml default." }),
  criticWarmup: z
    .number()
    .int()
    .min(0)
    .default(0)
    .meta({ description: 'Steps that train the critic only, before the actor (trainer.critic_warmup).' }),
});
export type VerlGrpoOptions = CommonTrainOptions & {
  gpus: number;
  grpo: z.infer<typeof verlGrpoOptionsSchema>;
  ppo: z.infer<typeof verlPpoOptionsSchema>;
};

/** train_rl_collabllm.sh's actor learning rate, when learningRate is not set. */
export const VERL_GRPO_LEARNING_RATE = 1e-6;
/** The seed's PPO learning rate (microsoft/CollabLLM scripts/train/ppo.py's example command), when learningRate is not set. */
export const VERL_PPO_LEARNING_RATE = 5e-6;
/** main_ppo saves nothing with save_freq <= 0; this saves the last step only. */
export const SAVE_LAST_ONLY = 1_000_000_000;
export const REWARD_URL_ENV = 'COLLAB_LOOP_REWARD_URL';

/** The plan's steps for method grpo or ppo; `env` is the adapter's common environment. */
export function planVerlGrpo(
  job: TrainJob,
  o: VerlGrpoOptions,
  env: Record<string, string>,
  hydra: (v: string | number) => string,
): TrainStep[] {
  const prepare = onlinePrepareStep(job, env); // refuses a job without a reward service
  const { rewardUrl, agentLoop, interactionName } = job.onlineRl!;
  const g = o.grpo;
  const ppo = job.method === 'ppo';
  const file = (name: string) => path.join(job.dataDir, name);
  const flag = (b: boolean) => (b ? 'true' : 'false');
  // JSON is YAML: verl reads both files with OmegaConf, and the stand-in (and anyone) with a JSON parser.
  const interaction = JSON.stringify(
    { interaction: [{ name: interactionName, class_name: `${PLUGIN_MODULE}.CollabLoopInteraction`, config: { reward_url: rewardUrl } }] },
    null,
    2,
  );
  const agentLoops = JSON.stringify([{ name: agentLoop.name, _target_: g.agentLoop ?? agentLoop.target }], null, 2);
  const overrides: Array<[string, string | number]> = [
    ['algorithm.adv_estimator', ppo ? 'gae' : 'grpo'],
    ['algorithm.use_kl_in_reward', 'false'],
    ['data.train_files', file(RL_TRAIN_PARQUET)],
    ['data.val_files', file(RL_VALIDATION_PARQUET)],
    ['data.max_prompt_length', g.maxPromptLength],
    ['data.max_response_length', g.maxResponseLength],
    ['data.train_batch_size', g.trainBatchSize],
    ['data.filter_overlong_prompts', 'true'],
    ['data.truncation', 'error'],
    ['data.seed', job.seed],
    ['actor_rollout_ref.model.path', job.base],
    ['actor_rollout_ref.model.use_remove_padding', 'true'],
    ['actor_rollout_ref.model.enable_gradient_checkpointing', 'true'],
    ['actor_rollout_ref.actor.optim.lr', o.learningRate ?? (ppo ? VERL_PPO_LEARNING_RATE : VERL_GRPO_LEARNING_RATE)],
    ['actor_rollout_ref.actor.ppo_mini_batch_size', g.ppoMiniBatchSize],
    ['actor_rollout_ref.actor.use_dynamic_bsz', 'true'],
    ['actor_rollout_ref.actor.ppo_max_token_len_per_gpu', g.maxTokensPerGpu],
    ['actor_rollout_ref.actor.use_kl_loss', 'true'],
    ['actor_rollout_ref.actor.kl_loss_coef', g.klLossCoef],
    ['actor_rollout_ref.actor.kl_loss_type', 'low_var_kl'],
    ['actor_rollout_ref.actor.entropy_coeff', 0],
    ['actor_rollout_ref.actor.fsdp_config.param_offload', flag(g.offload)],
    ['actor_rollout_ref.actor.fsdp_config.optimizer_offload', flag(g.offload)],
    ['actor_rollout_ref.ref.fsdp_config.param_offload', flag(g.offload)],
    ['actor_rollout_ref.rollout.name', 'vllm'],
    ['actor_rollout_ref.rollout.mode', 'async'],
    ['actor_rollout_ref.rollout.n', ppo ? o.ppo.rolloutN : g.rolloutN],
    ['actor_rollout_ref.rollout.temperature', g.temperature],
    ['actor_rollout_ref.rollout.gpu_memory_utilization', g.gpuMemoryUtilization],
    ['actor_rollout_ref.rollout.tensor_model_parallel_size', g.tensorParallel],
    ['actor_rollout_ref.rollout.multi_turn.enable', 'true'],
    ['actor_rollout_ref.rollout.multi_turn.format', 'hermes'],
    ['actor_rollout_ref.rollout.multi_turn.max_user_turns', g.maxUserTurns],
    ['actor_rollout_ref.rollout.multi_turn.max_assistant_turns', g.maxAssistantTurns],
    ['actor_rollout_ref.rollout.multi_turn.num_repeat_rollouts', g.numRepeatRollouts],
    ['actor_rollout_ref.rollout.multi_turn.interaction_config_path', file('interaction.yaml')],
    ['actor_rollout_ref.rollout.agent.agent_loop_config_path', file('agent_loop.yaml')],
    // Our manager (registered when verl loads the reward function file) scores a response's futures together, so a
    // future whose judge failed is left out instead of counting as 0 (verl-recipe's CollabLLM manager fills 0).
    ['reward_model.reward_manager', 'collab_loop'],
    ['custom_reward_function.path', PLUGIN_FILE],
    ['custom_reward_function.name', 'score_futures'],
    ...(ppo ? criticOverrides(job, o, flag) : []),
    ['trainer.nnodes', 1],
    ['trainer.n_gpus_per_node', o.gpus],
    ['trainer.logger', 'console'],
    ['trainer.default_local_dir', job.workDir],
    ['trainer.val_before_train', 'false'],
    ['trainer.test_freq', g.testFreq],
    ['trainer.critic_warmup', ppo ? o.ppo.criticWarmup : 0],
    ['trainer.total_epochs', Math.ceil(o.epochs)],
    ...(o.maxSteps !== undefined ? [['trainer.total_training_steps', o.maxSteps] as [string, number]] : []),
    ['trainer.save_freq', o.saveSteps > 0 ? o.saveSteps : SAVE_LAST_ONLY],
    ['trainer.resume_mode', 'auto'],
  ];
  // The interaction class is imported by name (this folder), the agent loop from the recipe's verl checkout.
  const pythonPath = [PLUGIN_DIR, ...(g.recipePath ? [g.recipePath] : [])].join(path.delimiter);
  return [
    prepare,
    {
      name: 'train',
      argv: [
        ...(o.launcher ?? [job.python]),
        '-m',
        'verl.trainer.main_ppo',
        ...overrides.map(([k, v]) => `${k}=${hydra(v)}`),
        ...o.extraArgs,
      ],
      env: { ...env, VLLM_USE_V1: '1', PYTHONPATH: pythonPath, [REWARD_URL_ENV]: rewardUrl },
      files: { [file('interaction.yaml')]: `${interaction}\n`, [file('agent_loop.yaml')]: `${agentLoops}\n` },
    },
    {
      name: 'export',
      argv: [job.python, VERL_EXPORT, '--work-dir', job.workDir, '--subdir', 'actor', '--out', job.hfOutput],
      env: { ...env },
    },
  ];
}

/** The critic of method ppo: a value model with the actor's memory settings (verl's ppo_trainer.yaml `critic`). */
function criticOverrides(job: TrainJob, o: VerlGrpoOptions, flag: (b: boolean) => string): Array<[string, string | number]> {
  return [
    ['critic.model.path', o.ppo.criticPath ?? job.base],
    ['critic.model.use_remove_padding', 'true'],
    ['critic.model.enable_gradient_checkpointing', 'true'],
    ['critic.optim.lr', o.ppo.criticLearningRate],
    ['critic.ppo_max_token_len_per_gpu', o.grpo.maxTokensPerGpu],
    ['critic.model.fsdp_config.param_offload', flag(o.grpo.offload)],
    ['critic.model.fsdp_config.optimizer_offload', flag(o.grpo.offload)],
  ];
}
