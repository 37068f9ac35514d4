// The `tracking.mlflow` config section (MLflow); mlflow.ts is the client that reads it.
import { z } from 'zod';
import { envVarName } from '../../contracts/config-fields';

export const mlflowTrackingSchema = z.strictObject({
  trackingUri: z
    .url({ message: 'must be a URL such as http://127.0.0.1:5000' })
    .meta({ description: 'The tracking server, e.g. http://mlflow.internal:5000 (`mlflow server`).' }),
  experiment: z.string().min(1).default('collab-loop').meta({ description: 'The MLflow experiment the runs go to.' }),
  tokenEnv: envVarName
    .optional()
    .meta({ description: "Env var holding a bearer token, for servers behind auth (MLflow's own client reads MLFLOW_TRACKING_TOKEN)." }),
  uploadReport: z.boolean().default(true).meta({
    description: "Upload the HTML report as the run's artifact `report.html` (needs `mlflow server` serving artifacts, its default).",
  }),
  timeoutSeconds: z.number().positive().default(10).meta({
    description:
      'All of one tracking call (every REST request and the report upload, retries included); then it is aborted and the loop goes on: the next call sends what this one did not.',
  }),
});
export type MlflowTracking = z.infer<typeof mlflowTrackingSchema>;
