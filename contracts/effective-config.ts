// The config a loop goes on with: its own, with what `retry --set` changed (carried in the loop's state).
import type { LoopConfig } from './config';
import type { LoopState } from './run';

export const effectiveConfig = (config: LoopConfig, state: Pick<LoopState, 'config' | 'budget'> | undefined): LoopConfig =>
  state?.config ?? (state?.budget ? { ...config, budget: state.budget } : config);
