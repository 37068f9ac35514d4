// The train stage: the config's recipe resolved for the trainer's run (training/train-checkpoint.ts).
import type { TrainResult } from '../../contracts/run';
import { recipeOf } from '../recipes/runtime';
import { trainNextCheckpoint } from '../training/train-checkpoint';
import type { TrainInput } from '../training/train-input';

export async function trainCheckpoint(input: TrainInput): Promise<TrainResult> {
  return trainNextCheckpoint(input, recipeOf(input.config));
}
