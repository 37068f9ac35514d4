// The Python the verl adapters (./verl.ts, ./verl-grpo.ts) run, which sits beside them in this folder.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const beside = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** SFT prepare: train.jsonl → train.parquet (+ val.parquet). */
export const JSONL_TO_PARQUET = beside('jsonl_to_parquet.py');
/** export: the checkpoint named by the tracker file, merged into a Hugging Face directory. */
export const VERL_EXPORT = beside('verl_export.py');
/** GRPO and PPO: the interaction, the reward function and the reward manager that relay to the recipe's reward service. */
export const PLUGIN_MODULE = 'verl_collab_loop';
export const PLUGIN_FILE = beside(`${PLUGIN_MODULE}.py`);
/** verl imports the interaction class by module name: the train step puts this folder on PYTHONPATH. */
export const PLUGIN_DIR = path.dirname(PLUGIN_FILE);
