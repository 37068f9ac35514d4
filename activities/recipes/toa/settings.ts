// The seed's per-experiment settings as presets (oceanypt/TOA bash/*/run_generate.api.*.pre_load.sh), so a config
// names the experiment instead of copying numbers; a value written in the config wins over its preset.
//   alpacaeval    — bash/exp_alpaca_eval:        tau 0.1, alpha 0.01, temperature 0.7 for every method
//   ultrafeedback — bash/data_gen_ultrafeedback: tau 0.1, alpha 0.01, temperature 0.8 for the MCTS run
//                   (run_generate.api.mcts.pre_load.sh) and 0.7 for the baselines (their own scripts)
//   wmt           — bash/exp_nmt:                tau 1 (KIWI scores live in 0–1), alpha 0.05, temperature 0.7
// Without `preset`, a translation task takes `wmt` and an instruction task `alpacaeval`. The student's own answers
// (evaluation) are sampled at `temperature` or 0.7: the seed samples no student.
import type { Method } from './baselines';

export const TOA_PRESETS = ['alpacaeval', 'ultrafeedback', 'wmt'] as const;
export type ToaPreset = (typeof TOA_PRESETS)[number];

interface PresetValues {
  tau: number;
  alpha: number;
  /** Generation temperature of the search's policies, per method. */
  temperature: (method: Method) => number;
}

const PRESET_VALUES: Record<ToaPreset, PresetValues> = {
  alpacaeval: { tau: 0.1, alpha: 0.01, temperature: () => 0.7 },
  ultrafeedback: { tau: 0.1, alpha: 0.01, temperature: (m) => (m === 'toa' ? 0.8 : 0.7) },
  wmt: { tau: 1, alpha: 0.05, temperature: () => 0.7 },
};

export const STUDENT_TEMPERATURE = 0.7;

/** The fields of the recipe section (config.ts) the presets fill. */
interface Settable {
  preset?: ToaPreset;
  task: string;
  search: { tau?: number; alpha?: number };
  temperature?: number;
}

export const presetOf = (cfg: Pick<Settable, 'preset' | 'task'>): ToaPreset =>
  cfg.preset ?? (cfg.task === 'translation' ? 'wmt' : 'alpacaeval');

/** The search's tau and alpha: the config's, else its preset's. */
export function searchSettings(cfg: Settable): { tau: number; alpha: number } {
  const p = PRESET_VALUES[presetOf(cfg)];
  return { tau: cfg.search.tau ?? p.tau, alpha: cfg.search.alpha ?? p.alpha };
}

/** A method's sampling temperature: the config's, else its preset's for that method. */
export const methodTemperature = (cfg: Settable, method: Method): number =>
  cfg.temperature ?? PRESET_VALUES[presetOf(cfg)].temperature(method);
