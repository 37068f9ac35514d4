// Building blocks of config sections, shared by the sections that recipes, trainers and trackers declare where they
// live (configs/schema.ts composes them). Secrets stay in the worker's environment: fields name the variable.
import { z } from 'zod';

export const positiveInt = z.number().int().positive();

export const envVarName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the NAME of an environment variable (the key itself never goes in a config)');

/** An OpenAI-compatible endpoint that the loop does not deploy itself. */
export const externalEndpointSchema = z.strictObject({
  baseUrl: z.url({ message: 'must be a URL such as http://127.0.0.1:8000/v1' }),
  model: z.string().min(1),
  apiKeyEnv: envVarName.optional(),
  maxConcurrency: positiveInt.default(32),
});
export type ExternalEndpoint = z.infer<typeof externalEndpointSchema>;
