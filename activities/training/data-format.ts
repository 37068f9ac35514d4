// Which row format the data stage writes: the one the configured trainer reads (its adapter's dataFormat; a
// `command` trainer says it in `dataFormat`). Without a trainer (evaluation-only loops) nothing is trained; fairseq2 rows
// are still written so the data can be inspected.
import type { LoopConfig } from '../../contracts/config';
import type { TrainingDataFormat } from '../data/formats';
import { TRAINER_ADAPTERS } from './adapters';

export function trainingDataFormat(config: LoopConfig): TrainingDataFormat {
  const t = config.trainer;
  if (!t) return 'fairseq2';
  return t.kind === 'command' ? t.dataFormat : TRAINER_ADAPTERS[t.kind].dataFormat;
}
