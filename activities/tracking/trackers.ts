// The `tracking:` section: each tracker declares its options where it lives; this file lists them once.
import { z } from 'zod';
import { mlflowTrackingSchema } from './mlflow-options';
import { wandbTrackingSchema } from './wandb-options';

export const trackingSchema = z
  .strictObject({
    mlflow: mlflowTrackingSchema.optional().meta({ description: 'Log to an MLflow tracking server over its REST API.' }),
    wandb: wandbTrackingSchema.optional().meta({ description: 'Log to Weights & Biases through its Python SDK.' }),
  })
  .refine((t) => t.mlflow || t.wandb, { message: 'names no tracker: add mlflow: or wandb: (or drop the section)' });
