// A config field that names an environment variable: secrets stay in the worker's environment, never in a config
// or a workflow history.
import { z } from 'zod';

export const envVarName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the NAME of an environment variable (the key itself never goes in a config)');
