// A small, safe evaluator for the plain-text answers graderNormalize produces (no eval(), no sympy): integers,
// decimals, + - * / ^, parentheses, implicit multiplication ("2sqrt(3)", "9pi"), sqrt(...) and pi. Anything
// else — variables, inf, huge powers — is "not a number" (undefined), and the grader then needs string equality.

const TOKEN = /(\d+\.?\d*|\.\d+|[a-z]+|[-+*/^()])/y;
const MAX_LENGTH = 200;
const MAX_EXPONENT = 1000;

function tokenize(s: string): string[] | undefined {
  const toks: string[] = [];
  for (let i = 0; i < s.length; ) {
    TOKEN.lastIndex = i;
    const m = TOKEN.exec(s);
    if (!m) return undefined;
    toks.push(m[1]);
    i = TOKEN.lastIndex;
  }
  return toks;
}

class NotANumber extends Error {}

export function evaluateNumeric(text: string): number | undefined {
  if (!text || text.length > MAX_LENGTH) return undefined;
  const toks = tokenize(text);
  if (!toks?.length) return undefined;
  let p = 0;
  const peek = () => toks[p];
  const next = () => {
    if (p >= toks.length) throw new NotANumber();
    return toks[p++];
  };
  const startsAtom = (t: string | undefined) => t !== undefined && (/^[\d.]/.test(t) || t === 'pi' || t === 'sqrt' || t === '(');

  const expr = (): number => {
    let v = term();
    while (peek() === '+' || peek() === '-') v = next() === '+' ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    for (;;) {
      const t = peek();
      if (t === '*') {
        next();
        v *= unary();
      } else if (t === '/') {
        next();
        v /= unary();
      } else if (startsAtom(t))
        v *= power(); // implicit multiplication
      else return v;
    }
  };
  const unary = (): number => {
    if (peek() === '-') {
      next();
      return -unary();
    }
    if (peek() === '+') {
      next();
      return unary();
    }
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (peek() !== '^') return base;
    next();
    const exp = unary(); // right-associative: 2^3^2 = 2^9
    if (Math.abs(exp) > MAX_EXPONENT) throw new NotANumber();
    return base ** exp;
  };
  const atom = (): number => {
    const t = next();
    if (/^[\d.]/.test(t)) return Number(t);
    if (t === 'pi') return Math.PI;
    if (t === 'sqrt') {
      if (peek() !== '(') throw new NotANumber();
      return Math.sqrt(atom());
    }
    if (t === '(') {
      const v = expr();
      if (next() !== ')') throw new NotANumber();
      return v;
    }
    throw new NotANumber();
  };

  try {
    const v = expr();
    return p === toks.length && Number.isFinite(v) ? v : undefined;
  } catch (err) {
    if (err instanceof NotANumber) return undefined;
    throw err;
  }
}

/** Equal as numbers up to floating-point noise (1e-9 relative): 0.5 = 1/2, but 0.333 ≠ 1/3 and 3.14 ≠ pi. */
export function numericallyEqual(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}
