// The `tracking.wandb` config section (Weights & Biases); wandb.ts is the client that reads it.
import { z } from 'zod';
import { envVarName } from '../../contracts/config-fields';

export const wandbTrackingSchema = z.strictObject({
  project: z.string().min(1),
  entity: z.string().min(1).optional(),
  mode: z.enum(['offline', 'online']).default('offline'),
  /** Where W&B writes its run directories; default <stateDir>/wandb. */
  dir: z.string().optional(),
  /** Env var holding the key, for `mode: online`. */
  apiKeyEnv: envVarName.default('WANDB_API_KEY'),
  /** Python with `wandb` installed; default the project's .venv. */
  python: z.string().optional(),
  /** All of one tracking call, after which the SDK's process is killed and the loop goes on. Longer than MLflow's:
   *  each call starts Python, imports the SDK and its service process (about 2 s here, more on a loaded machine). */
  timeoutSeconds: z.number().positive().default(30),
});
export type WandbTracking = z.infer<typeof wandbTrackingSchema>;
