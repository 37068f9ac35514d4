// Builds the SFT and preference datasets from the training split's records, in the trainer's format.
import { ApplicationFailure } from '@temporalio/activity';
import type { ArtifactRef, ShardResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import { recipeRuntime } from '../recipes/runtime';
import { storeFor, writeStageManifest } from '../manifest';

export async function buildTrainingData(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ sft?: ArtifactRef; dpo?: ArtifactRef; manifest: ArtifactRef }> {
  const store = storeFor(input.config.stateDir);
  const records = input.shards.flatMap((s) => store.readJsonl<unknown>(s.records));
  const data = recipeRuntime(input.config).buildData(records);
  const toRef = (lines: string[]) => (lines.length ? store.put(lines.join('\n') + '\n', { ext: '.jsonl', rows: lines.length }) : undefined);
  const sft = toRef(data.sft);
  const dpo = toRef(data.dpo);
  const method = input.config.trainer?.method;
  if (method === 'sft' && !sft)
    throw ApplicationFailure.nonRetryable(`no SFT examples: none of the ${records.length} sampled conversations reached a correct agreement`, 'EmptyDataset');
  if (method === 'dpo' && !dpo)
    throw ApplicationFailure.nonRetryable(`no preference pairs: no turn of the ${records.length} sampled conversations had both a correct and an incorrect candidate (raise recipe.beamSize or trainSamples)`, 'EmptyDataset');
  const manifest = writeStageManifest(input.config.stateDir, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'build-data',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`train_shard_${i}`, s.records])) },
    params: { data: input.config.recipe.name === 'coral' ? input.config.recipe.data : {} },
    outputs: { sft: sft ?? null, dpo: dpo ?? null, ...data.counts },
  });
  return { sft, dpo, manifest };
}
