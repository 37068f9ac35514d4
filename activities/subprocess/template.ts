// Command templates from the config: argv words with {placeholders}. Words are substituted one by one and never
// passed through a shell, so a path with spaces stays one argument and nothing gets interpreted.
export class TemplateError extends Error {
  override name = 'TemplateError';
}

export function renderCommand(template: string[], values: Record<string, string | number | undefined>): string[] {
  return template.map((word) =>
    word.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
      const v = values[name];
      if (v === undefined)
        throw new TemplateError(
          `unknown placeholder {${name}} in command word "${word}"; known: ${Object.keys(values)
            .map((k) => `{${k}}`)
            .join(' ')}`,
        );
      return String(v);
    }),
  );
}
