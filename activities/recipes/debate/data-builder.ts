// Debate's rows as the training debates stream past (RecipeRuntime.dataBuilder): each example a selection keeps
// (data.ts) is formatted and written at once to the role it trains. What the build holds is the selection's: counts,
// and a draw and a handle per maintained critic debate, whose examples wait in the sink's held file until the end
// (data.ts says why).
import { formatSft, type TrainingDataFormat } from '../../data/formats';
import type { HeldRows } from '../../data/held-rows';
import type { DataBuilder, RowSink } from '../types';
import type { DebateSelection, EmitExample } from './data';
import type { DebateRecord } from './debate';

export function debateDataBuilder(
  selection: (emit: EmitExample, held: HeldRows) => DebateSelection,
  format: TrainingDataFormat,
  sink: RowSink,
): DataBuilder<DebateRecord> {
  const s = selection((role, e) => {
    for (const line of formatSft([e], format)) sink.row(role, 'sft', line);
  }, sink.held());
  return { add: (r) => s.add(r), finish: () => s.finish().counts };
}
