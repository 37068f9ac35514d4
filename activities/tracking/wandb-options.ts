// The `tracking.wandb` config section (Weights & Biases); wandb.ts is the client that reads it.
import { z } from 'zod';
import { envVarName } from '../../contracts/config-fields';

export const wandbTrackingSchema = z.strictObject({
  project: z.string().min(1).meta({ description: 'The W&B project.' }),
  entity: z.string().min(1).optional().meta({ description: "The W&B team or user; default the key's." }),
  mode: z
    .enum(['offline', 'online'])
    .default('offline')
    .meta({ description: 'offline writes run directories to sync later (`wandb sync`); online sends as it goes.' }),
  dir: z.string().optional().meta({ description: 'Where W&B writes its run directories; default <stateDir>/wandb.' }),
  apiKeyEnv: envVarName.default('WANDB_API_KEY').meta({ description: 'Env var holding the key, for `mode: online`.' }),
  python: z.string().optional().meta({ description: "Python with `wandb` installed; default the project's .venv." }),
  timeoutSeconds: z.number().positive().default(30).meta({
    description:
      "All of one tracking call, after which the SDK's process is killed and the loop goes on. Longer than MLflow's: each call starts Python, imports the SDK and its service process (about 2 s here, more on a loaded machine).",
  }),
});
export type WandbTracking = z.infer<typeof wandbTrackingSchema>;
