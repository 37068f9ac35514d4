// Each proxy is typed with its queue's activities only: scheduling an activity through a queue whose workers do not
// register it is a compile error (tsc checks this file: `npx tsc --noEmit`), not a task that waits on the wrong pool.
import { describe, expectTypeOf, it } from 'vitest';
import type { CpuActivities, GpuActivities, LlmActivities, SandboxActivities } from '../../../contracts/activities';
import type { StageActivities } from '../../../workflows/activity-proxies';

type Train = ReturnType<StageActivities['train']>;

describe('the activity proxies', () => {
  it("offer each queue's activities and no other", () => {
    expectTypeOf<keyof StageActivities['cpu']>().toEqualTypeOf<keyof CpuActivities>();
    expectTypeOf<keyof StageActivities['llm']>().toEqualTypeOf<keyof LlmActivities>();
    expectTypeOf<keyof StageActivities['sandbox']>().toEqualTypeOf<keyof SandboxActivities>();
    expectTypeOf<keyof StageActivities['deploy']>().toEqualTypeOf<keyof GpuActivities>();
    expectTypeOf<keyof Train>().toEqualTypeOf<keyof GpuActivities>();
  });

  it('refuse an activity of another queue', () => {
    expectTypeOf<Train>().toHaveProperty('trainCheckpoint');
    // @ts-expect-error trainCheckpoint is a gpu activity: the cpu proxy cannot schedule it
    expectTypeOf<StageActivities['cpu']>().toHaveProperty('trainCheckpoint');
    // @ts-expect-error runShard runs on the llm queue only
    expectTypeOf<StageActivities['cpu']>().toHaveProperty('runShard');
    // @ts-expect-error scoreShard runs on the sandbox queue only
    expectTypeOf<StageActivities['llm']>().toHaveProperty('scoreShard');
    // @ts-expect-error evaluateIteration runs on the cpu queue only
    expectTypeOf<StageActivities['deploy']>().toHaveProperty('evaluateIteration');
    // buildTrainingData is on both the cpu and the llm queue.
    expectTypeOf<StageActivities['cpu']>().toHaveProperty('buildTrainingData');
    expectTypeOf<StageActivities['llm']>().toHaveProperty('buildTrainingData');
  });
});
