// Reading the JSON object a model was asked to reply with. The simulator and the judges answer in JSON, and models
// bend the format: fences, prose around the object, trailing commas, raw newlines inside strings, and code put in
// Python triple-quoted strings (the seed's collabllm/utils/extract_json_reliable.py tolerates the same). We normalise
// the text into strict JSON and let JSON.parse decide; nothing is guessed beyond the rules below.

/** The first JSON object in a model reply, or undefined when none can be read. */
export function parseJsonReply(text: string): Record<string, unknown> | undefined {
  // Fenced blocks first: prose before a fence may hold braces of its own ("use {name} here").
  const fenced = [...text.matchAll(/```[A-Za-z]*[^\S\n]*\n?([\s\S]*?)```/g)].map((m) => m[1]);
  for (const source of [...fenced, text]) {
    for (let start = source.indexOf('{'); start !== -1; start = source.indexOf('{', start + 1)) {
      // Strict quotes first; only when that fails, treat a quote that is not followed by , } ] : as part of the text.
      for (const strictQuotes of [true, false]) {
        const value = tryParse(normalizeFrom(source, start, strictQuotes));
        if (value) return value;
      }
    }
  }
  return undefined;
}

function tryParse(json: string | undefined): Record<string, unknown> | undefined {
  if (json === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const PYTHON_LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

/** Strict JSON for the balanced object opening at `start`, or undefined when it never closes. */
function normalizeFrom(s: string, start: number, strictQuotes: boolean): string | undefined {
  let out = '';
  const closers: string[] = [];
  let i = start;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') {
      const str = readString(s, i, strictQuotes);
      if (!str) return undefined;
      out += str.literal;
      i = str.end;
    } else if (c === '{' || c === '[') {
      closers.push(c === '{' ? '}' : ']');
      out += c;
      i++;
    } else if (c === '}' || c === ']') {
      if (closers.pop() !== c) return undefined;
      const trimmed = out.trimEnd();
      out = (trimmed.endsWith(',') ? trimmed.slice(0, -1) : out) + c;
      i++;
      if (closers.length === 0) return out;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /[A-Za-z_]+/y;
      word.lastIndex = i;
      const w = word.exec(s)![0];
      out += PYTHON_LITERALS[w] ?? w;
      i += w.length;
    } else {
      out += c;
      i++;
    }
  }
  return undefined;
}

/** A string starting at `i` as a JSON literal, and the index after its closing quote(s). */
function readString(s: string, i: number, strictQuotes: boolean): { literal: string; end: number } | undefined {
  if (s.startsWith('"""', i)) {
    // Python triple quotes: the content is taken verbatim (code keeps its own quotes, backslashes and newlines).
    const close = s.indexOf('"""', i + 3);
    return close === -1 ? undefined : { literal: JSON.stringify(s.slice(i + 3, close)), end: close + 3 };
  }
  let body = '';
  let j = i + 1;
  while (j < s.length) {
    const c = s[j];
    if (c === '\\') {
      const n = s[j + 1];
      if (n === undefined) return undefined;
      if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(j + 2, j + 6))) {
        body += s.slice(j, j + 6);
        j += 6;
      } else if ('"\\/nrt'.includes(n) || ((n === 'b' || n === 'f') && !/[A-Za-z]/.test(s[j + 2] ?? ''))) {
        body += c + n;
        j += 2;
      } else {
        // Not a JSON escape (LaTeX \( \frac \beta, regex \d): keep the backslash as text instead of failing the
        // whole reply. \b and \f before a letter are LaTeX far more often than backspace or form feed.
        body += '\\\\';
        j++;
      }
    } else if (c === '"') {
      if (strictQuotes || closesString(s, j + 1)) return { literal: `"${body}"`, end: j + 1 };
      body += '\\"';
      j++;
    } else {
      const code = c.charCodeAt(0);
      // Raw newlines and tabs inside a string are the commonest slip; JSON wants them escaped.
      body += code >= 0x20 ? c : c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${code.toString(16).padStart(4, '0')}`;
      j++;
    }
  }
  return undefined;
}

/** Whether a quote at k−1 can end a string: what follows is a delimiter or the end of the text. */
function closesString(s: string, k: number): boolean {
  let j = k;
  while (j < s.length && /\s/.test(s[j])) j++;
  return j === s.length || ',}]:'.includes(s[j]);
}
