"""The MATH grader's symbolic step, as one long-lived process (activities/recipes/shared/symbolic-equal.ts).

The seeds' grader (vsubramaniam851/multiagent-ft multiagent-ft/grader.py, used by CoRal's match evaluator) calls
two normalised answers equal when sympy simplifies their difference to 0; the difference is parsed with sympy's
standard transformations plus implicit multiplication, `^` read as power, and any error counts as "not equal".
The normalising (and the guards deciding whether sympy may be asked at all) happen on the TypeScript side; this
process only answers the sympy question, one JSON line per request on stdin:
    {"a": "x^2+1", "b": "1+x^2"}  ->  {"equal": true}
    {"a": "(2", "b": "2"}          ->  {"equal": false, "reason": "error: ..."}
An item that outlasts --item-seconds is interrupted (SIGALRM) and answered {"equal": false, "reason": "timeout"}:
the seed has no limit, but a pathological expression must not stall a worker.
"""

import argparse
import json
import signal
import sys

import sympy
from sympy.parsing import sympy_parser

TRANSFORMATIONS = sympy_parser.standard_transformations + (sympy_parser.implicit_multiplication_application,)


class ItemTimeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise ItemTimeout()


def equal_under_sympy(a: str, b: str) -> bool:
    expr = f"({a})-({b})".replace("^", "**")
    return sympy.simplify(sympy_parser.parse_expr(expr, transformations=TRANSFORMATIONS)) == 0


def answer(line: str, seconds: float) -> dict:
    try:
        req = json.loads(line)
        a, b = req["a"], req["b"]
        if not isinstance(a, str) or not isinstance(b, str):
            raise ValueError("a and b must be strings")
    except (ValueError, KeyError, TypeError) as e:
        return {"equal": False, "reason": f"bad request: {e}"}
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return {"equal": bool(equal_under_sympy(a, b))}
    except ItemTimeout:
        return {"equal": False, "reason": "timeout"}
    except Exception as e:  # the seed's `except: pass` — an unparsable difference is "not equal"
        return {"equal": False, "reason": f"error: {type(e).__name__}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--item-seconds", type=float, default=5.0)
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    sys.stdout.write(json.dumps({"ready": True, "sympy": sympy.__version__}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer(line, args.item_seconds)) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
