// MATH answer equivalence without sympy: Hendrycks-style normalisation (the seed's `math_normalize`), a second
// normaliser for units/text/commas, elementwise tuples and intervals, and a small safe evaluator (no eval) for
// numeric forms — so \frac12, 0.5 and \dfrac{1}{2} are one answer, and so are 2\sqrt{3} and \sqrt{12}.

function stripBraceCommand(s: string, cmd: string): string {
  // \text{abc} -> abc (also \mbox, \mathrm), keeping nested braces balanced.
  let out = s;
  for (let i = out.indexOf(cmd + '{'); i !== -1; i = out.indexOf(cmd + '{')) {
    let depth = 0;
    let j = i + cmd.length;
    for (; j < out.length; j++) {
      if (out[j] === '{') depth++;
      else if (out[j] === '}' && --depth === 0) break;
    }
    if (j >= out.length) break;
    out = out.slice(0, i) + out.slice(i + cmd.length + 1, j) + out.slice(j + 1);
  }
  return out;
}

/** Normalises one answer string; two answers equal after this are the same answer. */
export function normalizeMathAnswer(raw: string): string {
  let s = raw.trim();
  s = s.replace(/^\$+|\$+$/g, '').trim();
  s = s.replace(/\\!|\\,|\\;|\\:|\\ /g, ' ');
  s = s.replace(/\\left|\\right/g, '');
  s = s.replace(/\\[dt]frac/g, '\\frac');
  s = s.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|°/g, '');
  s = s.replace(/\\%|%/g, '');
  s = s.replace(/\\\$/g, '');
  // Trailing unit words in \text{...} ("5 \text{ cm}") go; other \text{} keep their content.
  s = s.replace(/\s*\\(?:text|mbox|mathrm)\{\s*[a-zA-Z ]+\}\s*$/g, (m, off: number) => (off === 0 ? m : ''));
  for (const cmd of ['\\text', '\\mbox', '\\mathrm', '\\textbf', '\\boxed']) s = stripBraceCommand(s, cmd);
  s = s.replace(/\s+/g, '');
  s = s.replace(/\.$/, '');
  // "x=5" / "k = 5" -> "5" when the left side is a short variable name.
  const eq = /^[a-zA-Z]{1,2}=(.+)$/.exec(s);
  if (eq) s = eq[1];
  // \frac12 -> \frac{1}{2}, \frac1{2} -> \frac{1}{2}, \sqrt2 -> \sqrt{2}
  s = s.replace(/\\frac(\d)(\d)/g, '\\frac{$1}{$2}').replace(/\\frac(\d)\{/g, '\\frac{$1}{').replace(/\\frac\{([^{}]*)\}(\d)/g, '\\frac{$1}{$2}');
  s = s.replace(/\\sqrt(\d+)/g, '\\sqrt{$1}');
  // a/b with integers -> \frac{a}{b}
  const slash = /^(-?\d+)\/(\d+)$/.exec(s);
  if (slash) s = `\\frac{${slash[1]}}{${slash[2]}}`;
  // 1,000 -> 1000 (only a plain number with thousands separators, never a tuple)
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, '');
  s = s.replace(/^(-?)\./, '$10.');
  s = s.replace(/^(-?\d+)\.0+$/, '$1');
  return s;
}

// ---- a tiny evaluator for numeric LaTeX -------------------------------------------------------------------
type Tok = string;
function tokenize(s: string): Tok[] | undefined {
  const toks: Tok[] = [];
  const re = /\s*(\d+\.\d*|\d*\.\d+|\d+|\\frac|\\sqrt|\\pi|\\cdot|\\times|[-+*/^(){}[\]])/y;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) return undefined;
    toks.push(m[1]);
    i = re.lastIndex;
  }
  return toks;
}

export function evaluateMath(s: string): number | undefined {
  const toks = tokenize(normalizeMathAnswer(s));
  if (!toks || toks.length === 0) return undefined;
  let p = 0;
  const peek = () => toks[p];
  const eat = (t?: string) => {
    const tok = toks[p];
    if (t !== undefined && tok !== t) throw new Error(`expected ${t}`);
    p++;
    return tok;
  };
  const startsAtom = (t: string | undefined) => t !== undefined && (/^[\d.]/.test(t) || ['\\pi', '\\frac', '\\sqrt', '(', '{'].includes(t));
  const expr = (): number => {
    let v = term();
    while (peek() === '+' || peek() === '-') v = eat() === '+' ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    for (;;) {
      const t = peek();
      if (t === '*' || t === '\\cdot' || t === '\\times') { eat(); v *= unary(); }
      else if (t === '/') { eat(); v /= unary(); }
      else if (startsAtom(t)) v *= power();
      else return v;
    }
  };
  const unary = (): number => {
    if (peek() === '-') { eat(); return -unary(); }
    if (peek() === '+') { eat(); return unary(); }
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === '^') { eat(); return base ** unary(); }
    return base;
  };
  const group = (): number => {
    if (peek() === '{') { eat('{'); const v = expr(); eat('}'); return v; }
    return atom();
  };
  const atom = (): number => {
    const t = eat();
    if (t === undefined) throw new Error('unexpected end');
    if (/^[\d.]/.test(t)) return Number(t);
    if (t === '\\pi') return Math.PI;
    if (t === '\\frac') { const a = group(); return a / group(); }
    if (t === '\\sqrt') {
      let n = 2;
      if (peek() === '[') { eat('['); n = expr(); eat(']'); }
      return group() ** (1 / n);
    }
    if (t === '(' || t === '{') { const v = expr(); eat(t === '(' ? ')' : '}'); return v; }
    throw new Error(`unexpected ${t}`);
  };
  try {
    const v = expr();
    return p === toks.length && Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Splits "(1,2)" / "[0,\infty)" into bracket kinds and top-level elements. */
function splitTuple(s: string): { open: string; close: string; items: string[] } | undefined {
  if (s.length < 2 || !'([{'.includes(s[0]) || !')]}'.includes(s[s.length - 1])) return undefined;
  const inner = s.slice(1, -1);
  const items: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of inner) {
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) { items.push(cur); cur = ''; } else cur += ch;
  }
  items.push(cur);
  return items.length > 1 ? { open: s[0], close: s[s.length - 1], items } : undefined;
}

export function mathAnswersEquivalent(a: string, b: string): boolean {
  const na = normalizeMathAnswer(a);
  const nb = normalizeMathAnswer(b);
  if (!na || !nb) return false;
  if (na === nb) return true;
  const ta = splitTuple(na);
  const tb = splitTuple(nb);
  if (ta || tb) {
    if (!ta || !tb || ta.open !== tb.open || ta.close !== tb.close || ta.items.length !== tb.items.length) return false;
    return ta.items.every((x, i) => mathAnswersEquivalent(x, tb.items[i]));
  }
  const va = evaluateMath(na);
  const vb = evaluateMath(nb);
  if (va === undefined || vb === undefined) return false;
  return Math.abs(va - vb) <= 1e-6 * Math.max(1, Math.abs(va), Math.abs(vb));
}

/** Content of the last \boxed{...} (brace-counted), or undefined. */
export function lastBoxed(s: string): string | undefined {
  const i = s.lastIndexOf('\\boxed');
  if (i === -1) return undefined;
  const open = s.indexOf('{', i);
  if (open === -1) return undefined;
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    if (s[j] === '{') depth++;
    else if (s[j] === '}' && --depth === 0) return s.slice(open + 1, j);
  }
  return undefined;
}

/** Content of the first \boxed{...} (the extractor is asked for exactly one). */
export function firstBoxed(s: string): string | undefined {
  const i = s.indexOf('\\boxed');
  return i === -1 ? undefined : lastBoxed(s.slice(0, s.indexOf('\\boxed', i + 1) === -1 ? s.length : s.indexOf('\\boxed', i + 1)));
}
