// The config's TypeScript types, for every layer. The type itself is inferred from the composed zod schema at the
// top (configs/schema.ts registers it here by declaration merging, as TanStack Router's `Register` interface does),
// so the file format and the code never disagree, and no layer below the composition root imports it.

/** Filled in by configs/schema.ts: `loopConfig` is `z.infer<typeof loopConfigSchema>`. */
// biome-ignore lint/suspicious/noEmptyInterface: completed by declaration merging in configs/schema.ts
export interface ConfigRegistry {}

export type LoopConfig = ConfigRegistry extends { loopConfig: infer C } ? C : never;
export type ServerConfig = LoopConfig['server'];
export type TrainerConfig = NonNullable<LoopConfig['trainer']>;
export type SimulatedAgentsConfig = NonNullable<LoopConfig['agents']>;
export type LlmConfig = LoopConfig['llm'];
export type TrackingConfig = NonNullable<LoopConfig['tracking']>;
export type { ExternalEndpoint, ModelRole } from './config-fields';
