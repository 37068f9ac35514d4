// Reading LaTeX command arguments: a brace group `{...}` (balanced) or, as LaTeX allows, a single token (`\frac12`).

export interface Arg {
  text: string;
  end: number;
  braced: boolean;
}

/** The argument starting at `i` (spaces skipped), or undefined at the end of the string. */
export function readArg(s: string, i: number): Arg | undefined {
  let j = i;
  while (s[j] === ' ') j++;
  if (j >= s.length) return undefined;
  if (s[j] === '{') {
    let depth = 0;
    for (let k = j; k < s.length; k++) {
      if (s[k] === '{') depth++;
      else if (s[k] === '}' && --depth === 0) return { text: s.slice(j + 1, k), end: k + 1, braced: true };
    }
    return { text: s.slice(j + 1), end: s.length, braced: true }; // unbalanced: take the rest
  }
  if (s[j] === '\\') {
    const name = /^\\([a-zA-Z]+|.)/.exec(s.slice(j))![0];
    return { text: name, end: j + name.length, braced: false };
  }
  return { text: s[j], end: j + 1, braced: false };
}

/** If the whole string is `\cmd{...}` (one balanced group), its content; else undefined. */
export function unwrapCommand(s: string, cmd: string): string | undefined {
  if (!s.startsWith(`${cmd}{`)) return undefined;
  const arg = readArg(s, cmd.length);
  return arg && arg.end === s.length ? arg.text : undefined;
}
