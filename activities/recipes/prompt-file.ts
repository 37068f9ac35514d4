// A recipe's `prompts:` file: a YAML (or JSON) mapping of prompt key → text, each text a template of the recipe's
// own declared keys (prompt-texts.ts). Read when the config loads (every problem one error naming the file and the
// key) and again by the activities that send the prompts, so only the path travels through Temporal, as task files do.
import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { yamlErrorAt } from '../yaml-error';
import { defaultTexts, type PromptCatalog, type Prompts, promptsOf, templateProblem } from './prompt-texts';

/** A bad prompts file: names the file and the key ('' when the problem is the whole file). */
export class PromptFileError extends Error {
  override name = 'PromptFileError';
  constructor(
    readonly file: string,
    readonly key: string,
    readonly detail: string,
  ) {
    super(key ? `${file}: ${key}: ${detail}` : `${file}: ${detail}`);
  }
}

/** The texts a prompts file gives, each checked against the key it replaces. */
export function readPromptFile(file: string, catalog: PromptCatalog, recipe: string): Record<string, string> {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PromptFileError(file, '', `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(source);
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const { line, message } = yamlErrorAt(source, err);
    throw new PromptFileError(file, '', `not valid YAML or JSON${line ? ` (line ${line})` : ''}: ${message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new PromptFileError(file, '', 'must be a mapping of prompt keys to texts, e.g. `agent.system: "You are …"`');
  const texts: Record<string, string> = {};
  for (const [key, text] of Object.entries(raw)) {
    if (typeof text !== 'string')
      throw new PromptFileError(
        file,
        key,
        `must be a text, not ${text === null ? 'empty' : Array.isArray(text) ? 'a list' : typeof text === 'object' ? 'a mapping (write nested keys flat, with dots)' : `the ${typeof text} ${JSON.stringify(text)}`}`,
      );
    const spec = catalog[key];
    if (!spec) throw new PromptFileError(file, key, `unknown prompt key; recipe ${recipe} has ${Object.keys(catalog).join(', ')}`);
    const problem = templateProblem(text, spec);
    if (problem) throw new PromptFileError(file, key, problem);
    texts[key] = text;
  }
  return texts;
}

/** What a recipe section says about its prompts: the file (absolute once the config is loaded) and the compat mode. */
export interface PromptsSection {
  name: string;
  prompts?: string;
  compat?: 'fixed' | 'seed';
}

/** The section's prompts: the catalog's defaults (by compat), replaced key by key by the prompts file's texts. */
export function recipePrompts(catalog: PromptCatalog, section: PromptsSection): Prompts {
  const file = section.prompts ? readPromptFile(section.prompts, catalog, section.name) : {};
  return promptsOf(catalog, { ...defaultTexts(catalog, section.compat), ...file });
}
