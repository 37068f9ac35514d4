// MATH gold matching: the PRM800K-style `grade_answer` CoRal's evaluator calls (collaborative-reasoner
// evaluators/match_evaluators.py → multiagent-ft/grader.py). Order: equal after hendrycksNormalize → equal after
// graderNormalize → element-wise for tuples/intervals, with the grader's guards: two plain fractions must match
// exactly (an unreduced 2/4 is not 1/2), and an integer answer needs an integer prediction (6 vs \sqrt{36} fails);
// otherwise the elements are equal when sympy simplifies their difference to 0 (symbolic-equal.ts) — exact, as
// the seed's grader: x^2+1 = 1+x^2 and \frac{\sqrt{3}}{2} = \frac{1}{2}\sqrt{3}, but 123456789013 ≠ 123456789012.
// `compat: seed` also takes the seed's LaTeX rendering (math-normalize.ts latexToText) and the two checks below.
import { graderNormalize, hendrycksNormalize, type MathCompat, stripThousandsCommas, strIsInt } from './math-normalize';
import { equalUnderSympy } from './symbolic-equal';

const TUPLE_CHARS = '()[]';
const isPlainFraction = (x: string) => /^-?[0-9]+\/0*[1-9][0-9]*$/.test(x);
// SEED-COMPAT: the seed's `_is_frac` pattern has an unescaped "." on each side of the slash (any one character), so
// "1/2+3" is no fraction but "12+/3" and "1/23." are, and the exact-match rule then applies to them.
const isSeedFraction = (x: string) => /^-?[0-9]+.?\/0*[1-9][0-9]*.?$/.test(x);

/** "(1,2)" / "[0,inf)" → elements; anything else (incl. nested brackets) is one element. */
function splitTuple(expr: string): string[] {
  const e = stripThousandsCommas(expr);
  if (!e) return [];
  const inner = e.slice(1, -1);
  if (
    e.length > 2 &&
    TUPLE_CHARS.includes(e[0]) &&
    TUPLE_CHARS.includes(e[e.length - 1]) &&
    ![...TUPLE_CHARS].some((c) => inner.includes(c))
  )
    return inner.split(',').map((x) => x.trim());
  return [e];
}

function elementsEqual(gold: string, given: string, compat: MathCompat): boolean {
  // SEED-COMPAT: the seed's fraction test (see isSeedFraction above).
  const isFraction = compat === 'seed' ? isSeedFraction : isPlainFraction;
  if (isFraction(gold) && isFraction(given)) return gold === given;
  if (strIsInt(gold) !== strIsInt(given)) return false;
  if (gold === given) return true;
  return sympyMayEvaluate(`(${gold})-(${given})`) && equalUnderSympy(gold, given).equal;
}

/** The seed grader's guard (`should_allow_eval`): no free text (more than two unknown letters) and no powers that
 *  could hang sympy (`^{`, `^(`, a tower `^2^`, an exponent of two or more digits). */
export function sympyMayEvaluate(expr: string): boolean {
  const letters = new Set(expr.replaceAll('sqrt', '').replaceAll('frac', '').match(/\p{L}/gu) ?? []);
  if (letters.size > 2) return false;
  if (expr.includes('^{') || expr.includes('^(')) return false;
  return !/\^[0-9]+\^/.test(expr) && !/\^[0-9][0-9]+/.test(expr);
}

/** Is `given` (a predicted final answer, e.g. the content of \boxed{}) the gold answer? */
export function gradeMathAnswer(given: string, gold: string, compat: MathCompat = 'fixed'): boolean {
  // SEED-COMPAT: the seed has no emptiness check: two answers that both normalise to "" (an empty box, or only an
  // \mbox{…}, which its LaTeX reader drops) are equal.
  const seed = compat === 'seed';
  if (!seed && (!given.trim() || !gold.trim())) return false;
  if (hendrycksNormalize(given) === hendrycksNormalize(gold)) return true;
  const g = graderNormalize(gold, compat);
  const p = graderNormalize(given, compat);
  if (g === p) return seed || g !== '';
  if (!p) return false;
  const ge = splitTuple(g);
  const pe = splitTuple(p);
  if (ge.length > 1 && (g[0] !== p[0] || g[g.length - 1] !== p[p.length - 1])) return false; // ( vs [ matters
  if (ge.length !== pe.length) return false;
  return ge.every((x, i) => elementsEqual(x, pe[i], compat));
}

/** Symmetric form for comparing two predictions (agreement), where neither side is the gold. */
export function mathAnswersEquivalent(a: string, b: string, compat: MathCompat = 'fixed'): boolean {
  return gradeMathAnswer(a, b, compat) || gradeMathAnswer(b, a, compat);
}
