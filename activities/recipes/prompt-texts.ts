// The prompt texts of every recipe as templates under keys. Each recipe declares its keys where its prompts live
// (`prompts.ts`: what each text is, the placeholders it may use, its default text); a user's prompts file
// (prompt-file.ts) replaces any of them. One grammar for all, Python's str.format as the seed's
// sweet_rl scripts/simulate_interactions.py fills its prompt files: `{name}` is a placeholder, `{{` and `}}` are
// literal braces, any other brace is itself.

/** One prompt text a recipe lets a prompts file replace. */
export interface PromptSpec {
  /** What the text is (README, error messages). */
  about: string;
  /** The placeholders the text may use → what each stands for. */
  placeholders?: Readonly<Record<string, string>>;
  /** Placeholders the text must use (the prompt cannot work without them). */
  required?: readonly string[];
  /** The project's own text. */
  text: string;
  /** The default under `compat: seed`, where it differs from `text`. */
  seedText?: string;
}

export type PromptCatalog = Readonly<Record<string, PromptSpec>>;

/** A recipe's texts, merged (defaults, then a prompts file), ready to fill. */
export interface Prompts {
  /** The text of `key` with its placeholders filled; `values` must name every placeholder the key declares. */
  render(key: string, values?: Readonly<Record<string, string | number>>): string;
}

type Compat = 'fixed' | 'seed';

const TOKEN = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** `{{ name }}`: how Jinja (the CoRal seed's prompt library) writes a placeholder. */
const JINJA = /\{\{(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*)\}\}/g;

/** The placeholders a template uses, in order of first use. */
export function placeholdersIn(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(TOKEN)) if (m[1]) names.add(m[1]);
  return [...names];
}

const listed = (names: readonly string[]) => names.map((n) => `{${n}}`).join(', ');

/** Why `text` cannot stand for `spec` (an unknown or missing placeholder), or undefined when it can. */
export function templateProblem(text: string, spec: PromptSpec): string | undefined {
  const allowed = Object.keys(spec.placeholders ?? {});
  for (const m of text.matchAll(JINJA))
    if ((m[1] || m[3]) && allowed.includes(m[2])) return `${m[0]} is a Jinja placeholder; write {${m[2]}}`;
  const used = placeholdersIn(text);
  const unknown = used.find((n) => !allowed.includes(n));
  if (unknown !== undefined)
    return `unknown placeholder {${unknown}}; ${allowed.length ? `this text may use ${listed(allowed)}` : 'this text takes no placeholders'} (write {{ and }} for a literal brace)`;
  const missing = (spec.required ?? []).find((n) => !used.includes(n));
  if (missing !== undefined) return `must use the placeholder {${missing}} (${spec.placeholders?.[missing] ?? missing})`;
  return undefined;
}

export function renderTemplate(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(TOKEN, (token, name: string | undefined) => {
    if (!name) return token[0];
    const v = values[name];
    if (v === undefined) throw new Error(`prompt template: no value for {${name}}`);
    return String(v);
  });
}

/** The catalog's default texts: SEED-COMPAT `seedText` under `compat: seed` where a key has one (the seed's own
 *  wording, where ours differs). */
export function defaultTexts(catalog: PromptCatalog, compat: Compat = 'fixed'): Record<string, string> {
  return Object.fromEntries(Object.entries(catalog).map(([k, s]) => [k, compat === 'seed' ? (s.seedText ?? s.text) : s.text]));
}

/** `texts` (already checked against the catalog) as a Prompts. Rendering checks the CALLER: it must pass a value for
 *  every placeholder the key declares, so a text that uses one the code forgot cannot slip through. */
export function promptsOf(catalog: PromptCatalog, texts: Readonly<Record<string, string>>): Prompts {
  return {
    render(key, values = {}) {
      const spec = catalog[key];
      const text = texts[key];
      if (!spec || text === undefined) throw new Error(`prompts: no prompt key "${key}"`);
      const forgotten = Object.keys(spec.placeholders ?? {}).filter((n) => values[n] === undefined);
      if (forgotten.length) throw new Error(`prompts: ${key} rendered without ${listed(forgotten)}`);
      return renderTemplate(text, values);
    },
  };
}

export const defaultPrompts = (catalog: PromptCatalog, compat: Compat = 'fixed'): Prompts =>
  promptsOf(catalog, defaultTexts(catalog, compat));
