// The two MATH answer normalisers of the PRM800K-style grader CoRal uses (collaborative-reasoner evaluators/ and utils/), re-implemented:
//  - hendrycksNormalize: the classic `math_normalize` string clean-up (\dfrac → \frac, \frac12 → \frac{1}{2}, units
//    after "\text{ ", "x = 5" → "5", 0.5 → \frac{1}{2}, a/b → \frac{a}{b});
//  - graderNormalize: strips \text{}, $, %, unit words, thousands commas, then renders LaTeX as plain text
//    (\frac{1}{2} → 1/2, \sqrt{3} → sqrt(3), \pi → pi) that sympy can parse (symbolic-equal.ts).
// `compat: seed` renders LaTeX as the seed's pylatexenc 2.11 does (multiagent-ft grader.py `_parse_latex`): see
// latexToText.
import { readArg, unwrapCommand } from './latex-args';

/** `fixed` (default): the grader with LaTeX read as written; `seed`: also the seed's LaTeX-to-text quirks. */
export type MathCompat = 'fixed' | 'seed';

/** \frac12 → \frac{1}{2}, \frac1{x} → \frac{1}{x}, \frac{a}2 → \frac{a}{2} (recursively). */
export function fixFracs(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; ) {
    if (!s.startsWith('\\frac', i) || /[a-zA-Z]/.test(s[i + 5] ?? '')) {
      out += s[i++];
      continue;
    }
    const num = readArg(s, i + 5);
    const den = num && readArg(s, num.end);
    if (!num || !den) {
      out += s.slice(i);
      break;
    }
    out += `\\frac{${fixFracs(num.text)}}{${fixFracs(den.text)}}`;
    i = den.end;
  }
  return out;
}

/** \sqrt3 → \sqrt{3} (a bare single-token radicand). */
export function fixSqrt(s: string): string {
  return s.replace(/\\sqrt(?![a-zA-Z])\s*([^\s{[\\])/g, '\\sqrt{$1}');
}

const unwrapText = (s: string) => unwrapCommand(s, '\\text')?.trim() ?? s;

export function hendrycksNormalize(raw: string): string {
  let s = unwrapText(raw.trim());
  s = s.replace(/\n/g, '').replaceAll('\\!', '').replaceAll('\\\\', '\\');
  s = s
    .replace(/[td]frac/g, 'frac')
    .replaceAll('\\left', '')
    .replaceAll('\\right', '');
  s = s.replaceAll('^{\\circ}', '').replaceAll('^\\circ', '').replaceAll('\\$', '');
  // Units written as "5 \text{ cm}": keep what precedes the unit.
  const unit = s.indexOf('\\text{ ');
  if (unit > 0) s = s.slice(0, unit);
  s = s.replaceAll('\\%', '').replaceAll('%', '');
  s = s.replaceAll(' .', ' 0.').replaceAll('{.', '{0.');
  if (!s) return s;
  if (s[0] === '.') s = `0${s}`;
  // "k = 5" → "5" when the left side is a short name.
  const sides = s.split('=');
  if (sides.length === 2 && sides[0].length <= 2) s = sides[1];
  s = fixSqrt(s).replace(/ /g, '');
  s = fixFracs(s);
  if (s === '0.5') s = '\\frac{1}{2}';
  const slash = /^(-?\d+)\/(-?\d+)$/.exec(s);
  if (slash && String(Number(slash[1])) === slash[1] && String(Number(slash[2])) === slash[2]) s = `\\frac{${slash[1]}}{${slash[2]}}`;
  return s;
}

// ---- plain-text rendering of LaTeX (stands in for pylatexenc) ---------------------------------------------------

const SYMBOLS: Record<string, string> = {
  pi: 'pi',
  infty: 'inf',
  cdot: '*',
  times: '*',
  div: '/',
  cup: 'U',
  le: '<=',
  leq: '<=',
  ge: '>=',
  geq: '>=',
  ne: '!=',
  neq: '!=',
  pm: '±',
  circ: '',
  degree: '',
  left: '',
  right: '',
  displaystyle: '',
  quad: ' ',
  qquad: ' ',
};
const CONTENT_COMMANDS = new Set(['text', 'textbf', 'textit', 'mathrm', 'mathbf', 'mathit', 'mbox', 'operatorname', 'boxed', 'emph']);

/** Parenthesise unless a single number or name, so "a/b" and "x^y" keep their grouping in plain text. */
const group = (x: string) => (/^[a-z0-9.]+$/i.test(x) ? x : `(${x})`);

/** The matrix environments pylatexenc renders as "[ a b; c d ]" (its latex2text `_fmt_matrix`); plain `matrix`
 *  and `vmatrix` it renders as bare cells, so only these equal each other under `compat: seed`. */
const SEED_BRACKET_MATRICES = new Set(['pmatrix', 'bmatrix', 'array']);

/** compat seed: `\begin{env}…\end{env}` at `i` as pylatexenc writes it — rows joined by "; ", cells by " ", in
 *  brackets — or undefined when `i` starts no such environment. */
function seedMatrixAt(s: string, i: number): { text: string; end: number } | undefined {
  const m = /^\\begin\{([a-z]*matrix|array)\}/.exec(s.slice(i));
  if (!m || !SEED_BRACKET_MATRICES.has(m[1])) return undefined;
  const close = `\\end{${m[1]}}`;
  const stop = s.indexOf(close, i);
  if (stop === -1) return undefined;
  let body = s.slice(i + m[0].length, stop);
  if (m[1] === 'array') body = body.replace(/^\s*\{[^}]*\}/, ''); // the column spec
  const rows = body
    .split(/\\\\/)
    .map((row) =>
      row
        .split('&')
        .map((cell) => latexToText(cell, 'seed').trim())
        .join(' '),
    )
    .filter((row, k, all) => row !== '' || k < all.length - 1);
  return { text: `[ ${rows.join('; ')} ]`, end: stop + close.length };
}

/** LaTeX as plain text sympy can read. SEED-COMPAT `seed` renders as pylatexenc does for the seed's grader:
 *  \frac{a+b}{c} → "a+b/c" (no grouping, so an unevaluated sum in a fraction, or terms reordered inside one, is
 *  a different expression), \mbox{…} → "" (pylatexenc knows no \mbox), \sqrt[n]{x} → sqrt(x) (the index
 *  dropped), pmatrix / bmatrix / array → "[ a b; c d ]" (so the bracket kinds are equal). */
export function latexToText(src: string, compat: MathCompat = 'fixed'): string {
  const seed = compat === 'seed';
  const s = fixSqrt(fixFracs(src.replace(/[td]frac/g, 'frac')));
  let out = '';
  for (let i = 0; i < s.length; ) {
    const ch = s[i];
    const matrix = seed && ch === '\\' ? seedMatrixAt(s, i) : undefined;
    if (matrix) {
      out += matrix.text;
      i = matrix.end;
      continue;
    }
    if (ch === '^') {
      const a = readArg(s, i + 1);
      if (!a) {
        out += ch;
        i++;
        continue;
      }
      // Braces dropped, not parenthesised, as the seed's LaTeX-to-text step renders them (10^{-3} → 10^-3): the
      // sympy guard (math-equivalence.ts) refuses "^(" exactly as the seed's does.
      out += `^${latexToText(a.text, compat)}`;
      i = a.end;
      continue;
    }
    if (ch !== '\\') {
      out += ch;
      i++;
      continue;
    }
    const name = /^[a-zA-Z]+/.exec(s.slice(i + 1))?.[0];
    if (!name) {
      // \, \! \; \: are spacing; \% \$ \{ \} are the characters themselves.
      const sym = s[i + 1] ?? '';
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the characters %, $, { and } themselves, not a template
      out += '%${}'.includes(sym) && sym ? sym : ' ';
      i += 2;
      continue;
    }
    i += 1 + name.length;
    if (name === 'frac') {
      const num = readArg(s, i);
      const den = num && readArg(s, num.end);
      if (!num || !den) continue;
      // A space before every fraction, as the seed's grader writes " \\frac": a mixed number 1\frac{1}{2} becomes
      // "1 1/2", which the mixed-number rule reads as 1+1/2 (not 11/2).
      const [n, d] = [latexToText(num.text, compat), latexToText(den.text, compat)];
      out += seed ? ` ${n}/${d}` : ` ${group(n)}/${group(d)}`;
      i = den.end;
    } else if (name === 'sqrt') {
      let index: string | undefined;
      if (s[i] === '[') {
        const close = s.indexOf(']', i);
        if (close === -1) continue;
        index = latexToText(s.slice(i + 1, close), compat);
        i = close + 1;
      }
      const a = readArg(s, i);
      if (!a) continue;
      const radicand = latexToText(a.text, compat);
      out += index === undefined || seed ? `sqrt(${radicand})` : `${group(radicand)}^(1/${group(index)})`;
      i = a.end;
    } else if (CONTENT_COMMANDS.has(name)) {
      const a = readArg(s, i);
      if (!a) continue;
      if (!(seed && name === 'mbox')) out += latexToText(a.text, compat);
      i = a.end;
    } else {
      out += SYMBOLS[name] ?? name;
    }
  }
  return out;
}

// ---- the grader's second normaliser ---------------------------------------------------------------------------

const UNITS = [
  'degree',
  'cm',
  'centimeter',
  'meter',
  'mile',
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'year',
  'foot',
  'feet',
  'inch',
  'yard',
];
const UNIT_RE = new RegExp(`(?:${UNITS.join('|')})(?:es)?(?:s)? *(?:\\^[0-9]+)?`, 'g');

const isFloatString = (x: string) => /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(x);
const isIntValue = (v: number) => Math.abs(v - Math.round(v)) <= 1e-7;

/** "1,234,567" → "1234567" (only commas that separate groups of three digits). */
export function stripThousandsCommas(x: string): string {
  let prev: string;
  do {
    prev = x;
    x = x.replace(/(\d),(\d\d\d)($|\D)/, '$1$2$3');
  } while (x !== prev);
  return x;
}

export function strIsInt(x: string): boolean {
  const y = stripThousandsCommas(x);
  return isFloatString(y) && isIntValue(Number(y));
}

export function graderNormalize(raw: string, compat: MathCompat = 'fixed'): string {
  let e = unwrapCommand(raw.trim(), '\\text') ?? raw.trim();
  e = e.replaceAll('\\%', '%').replaceAll('\\$', '$').replaceAll('$', '').replaceAll('%', '');
  e = e.replaceAll(' or ', ' , ').replaceAll(' and ', ' , ');
  e = e.replaceAll('million', '*10^6').replaceAll('billion', '*10^9').replaceAll('trillion', '*10^12');
  e = e.replace(UNIT_RE, '').replace(/\^ *\\circ/g, '');
  if (e.startsWith('{') && e.endsWith('}')) e = e.slice(1, -1);
  e = e.replace(/,\\! */g, '');
  if (isFloatString(e) && isIntValue(Number(e))) e = String(Math.round(Number(e)));
  if (e.includes('\\')) e = latexToText(e, compat);
  e = e.replace(/- */g, '-');
  e = e.replace(/([0-9]) +([0-9])/g, '$1+$2'); // mixed number "7 3/4" → 7+3/4
  e = e.replace(/ /g, '').replace(/[{}]/g, '').toLowerCase();
  if (strIsInt(e)) e = String(Math.round(Number(stripThousandsCommas(e))));
  return e;
}
