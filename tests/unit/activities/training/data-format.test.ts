// The rows the data stage writes are the ones the configured trainer reads: its adapter's dataFormat, or the format
// a `command` trainer names.
import { describe, expect, it } from 'vitest';
import { TRAINER_ADAPTERS, TRAINER_KINDS } from '../../../../activities/training/adapters';
import { trainingDataFormat } from '../../../../activities/training/data-format';
import type { LoopConfig } from '../../../../contracts/config';
import { trainerSchema } from '../../../../configs/schema';

const withTrainer = (trainer?: Record<string, unknown>) => ({ trainer: trainer && trainerSchema.parse(trainer) }) as LoopConfig;

describe('training data format', () => {
  it("is the configured adapter's dataFormat", () => {
    for (const kind of TRAINER_KINDS) expect(trainingDataFormat(withTrainer({ kind }))).toBe(TRAINER_ADAPTERS[kind].dataFormat);
    expect(trainingDataFormat(withTrainer({ kind: 'trl', method: 'dpo' }))).toBe('trl');
    expect(trainingDataFormat(withTrainer({ kind: 'openrlhf' }))).toBe('openrlhf');
  });

  it('is the one a command trainer names (fairseq2 unless it names one)', () => {
    const command = ['train.sh', '{data}', '{output}'];
    expect(trainingDataFormat(withTrainer({ kind: 'command', command, dataFormat: 'trl' }))).toBe('trl');
    expect(trainingDataFormat(withTrainer({ kind: 'command', command }))).toBe('fairseq2');
  });

  it('is fairseq2 in a loop without a trainer (the rows are written for inspection)', () => {
    expect(trainingDataFormat(withTrainer())).toBe('fairseq2');
  });
});
