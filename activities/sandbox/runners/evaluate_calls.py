# Evaluates test call expressions against one Python source, inside the sandbox. Used for the task's reference
# (expected values) and, in a separate sandbox, for the candidate (actual values): each run sees only its own
# source. Usage: python3 evaluate_calls.py <per-call timeout seconds> <max bytes per value> [module|function]
#   [max nesting depth of a value]
# Inputs in the working directory: solution.py (the source), tests.txt (expressions separated by NUL bytes).
# For each test, like ColBench's evaluator: exec the source in a fresh namespace, then eval the expression, both
# under a timer. Output, on the process's original stdout, one frame per test as soon as it is known:
#   u32 index | u8 kind | u32 length | payload     (big-endian)
#   kind 0: pickle (protocol 5) of the value, reduced to plain builtin data; 2: None; and, with UTF-8 text saying
#   why: 1 the call raised, 3 it hit the per-call timer, 4 its value cannot be compared (not plain data, too large),
#   5 the source does not compile. (code-tests.ts turns kinds into reasons.)
# The code under test gets /dev/null as stdout/stderr, so its prints cannot corrupt or flood the frames.
# SEED-COMPAT: with `compat: seed` the candidate's run also gets expected.bin (the reference's frames) and
# compare_results.py: a value that is not plain builtin data (an object, a subclass of a builtin) is compared with the
# expected one here, by Python's == in the answer's own process as the seed compares (sweet_rl utils/code_utils.py
# check_correctness: `ground_truth_output == test_output`), so a rigged __eq__ decides, as it does in the seed.
import builtins
import datetime
import decimal
import fractions
import os
import pickle
import re
import signal
import sys

OUT = os.dup(1)
_null = os.open('/dev/null', os.O_RDWR)
os.dup2(_null, 1)
os.dup2(_null, 2)
os.dup2(_null, 0)

TIMEOUT = float(sys.argv[1])
MAX_VALUE = int(sys.argv[2])
# module: exec the source in one namespace, as a module runs. function: the seed's semantics (sweet_rl
# utils/code_utils.py get_function_output runs `exec(answer)` and `eval(test)` inside a function): top-level names go
# to a separate locals dict, which the answer's functions do not see, so their module-level imports and helpers
# raise NameError there.
SCOPE = sys.argv[3] if len(sys.argv) > 3 else 'module'
MAX_DEPTH = int(sys.argv[4]) if len(sys.argv) > 4 else 200


# Packages (of the sandbox's own, sandbox-packages.ts) that are imported here, before any timer, when the source or a
# test names them. The seed runs every answer in one long-lived evaluator process that has numpy imported already
# (sweet_rl scripts/evaluate_code.py), so an answer's `import numpy` costs nothing under its 1 s alarm; in a fresh
# interpreter the first import takes 0.1-0.5 s (numpy, pandas), which must not count against the call.
PRELOAD = ('numpy', 'pandas')


def preload(text):
    for name in PRELOAD:
        if re.search(r'\b%s\b' % name, text):
            try:
                __import__(name)
            except BaseException:
                pass  # the code's own import then fails the same way, inside its call


class CallTimeout(BaseException):
    """Raised by the timer. A BaseException, so that `except Exception` in the code under test does not eat it."""


class NotPlain(Exception):
    pass


def _alarm(signum, frame):
    raise CallTimeout()


def emit(index, kind, payload):
    data = index.to_bytes(4, 'big') + bytes([kind]) + len(payload).to_bytes(4, 'big') + payload
    view = memoryview(data)
    while view:
        n = os.write(OUT, view)
        view = view[n:]


def plain(v, depth=0, active=None):
    """The value as builtin data only. Subclasses of builtin types (namedtuple, IntEnum, OrderedDict, Counter...)
    become their base type, read through the base type's own methods so that no overridden method runs."""
    t = type(v)
    if v is None or t is bool or t is int or t is float or t is str or t is bytes or t is complex:
        return v
    if depth > MAX_DEPTH:
        raise NotPlain('value nested too deeply')
    if isinstance(v, int):
        return int.__int__(v)
    if isinstance(v, float):
        return float.__float__(v)
    if isinstance(v, complex):
        return complex.__complex__(v)
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, bytearray):
        return bytearray(memoryview(v))
    if isinstance(v, bytes):
        return bytes(memoryview(v))
    known = standard_value(v, t, depth)
    if known is not NOT_STANDARD:
        return known
    if active is None:
        active = set()
    if id(v) in active:
        raise NotPlain('value contains itself')
    active.add(id(v))
    try:
        d = depth + 1
        if isinstance(v, tuple):
            return tuple(plain(x, d, active) for x in tuple.__iter__(v))
        if isinstance(v, list):
            return [plain(x, d, active) for x in list.__iter__(v)]
        if isinstance(v, dict):
            return {plain(k, d, active): plain(x, d, active) for k, x in dict.items(v)}
        if isinstance(v, frozenset):
            return frozenset(plain(x, d, active) for x in frozenset.__iter__(v))
        if isinstance(v, set):
            return {plain(x, d, active) for x in set.__iter__(v)}
    finally:
        active.discard(id(v))
    raise NotPlain('returned a %s, which is not plain data' % _type_name(t))


NOT_STANDARD = object()


def standard_value(v, t, depth):
    """Standard-library and numpy values tasks return, as tagged plain data that compares the way the types' own ==
    does for two values of the same type (Decimal('1.0') == Decimal('1.00'); a Fraction is kept reduced; dates by ISO
    form), as the seed's in-process == does. numpy, when the code imported it (never imported here: it costs time):
    a scalar becomes its Python value (np.int64(3) == 3, as in the seed); an array becomes its shape and elements, so
    two arrays are equal iff np.array_equal says so (the seed's == on arrays: see compare_results.py)."""
    np = sys.modules.get('numpy')
    if np is not None:
        if isinstance(v, np.generic):
            item = np.generic.item(v)
            if isinstance(item, np.generic):  # long double, and other scalars with no Python equivalent
                raise NotPlain('returned a %s, which is not plain data' % _type_name(t))
            return plain(item, depth + 1)
        if isinstance(v, np.ndarray):
            return ('__ndarray__', tuple(v.shape), plain(np.ndarray.tolist(v), depth + 1))
    if t is decimal.Decimal:
        return ('__decimal__', str(v.normalize()) if v.is_finite() else str(v))
    if t is fractions.Fraction:
        return ('__fraction__', v.numerator, v.denominator)
    if t in (datetime.datetime, datetime.date, datetime.time):
        return ('__%s__' % t.__name__, v.isoformat())
    if t is datetime.timedelta:
        return ('__timedelta__', v.days, v.seconds, v.microseconds)
    return NOT_STANDARD


def deep(fn, *args, **kwargs):
    """fn under a recursion limit that lets a value MAX_DEPTH levels deep be walked (plain() takes two frames a
    level) and pickled, whatever the code under test left the limit at."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, 3 * MAX_DEPTH + 200))
    try:
        return fn(*args, **kwargs)
    finally:
        sys.setrecursionlimit(before)


def _type_name(t):
    try:
        return '%s.%s' % (t.__module__, t.__qualname__)
    except BaseException:
        return 'object'


def describe(e):
    try:
        text = '%s: %s' % (type(e).__name__, e)
    except BaseException:
        text = type(e).__name__
    return text[:500]


EXACT_PLAIN = (type(None), bool, int, float, str, bytes, complex, bytearray)


def exactly_plain(v, depth=0):
    """Only exact builtin types (and the standard values standard_value tags) all the way down: nothing whose own
    __eq__ could differ from the builtin one."""
    t = type(v)
    if t in EXACT_PLAIN or depth > MAX_DEPTH:
        return True
    if t in (tuple, list, set, frozenset):
        return all(exactly_plain(x, depth + 1) for x in v)
    if t is dict:
        return all(exactly_plain(k, depth + 1) and exactly_plain(x, depth + 1) for k, x in v.items())
    return standard_value(v, t, depth) is not NOT_STANDARD


def seed_expected():
    """index -> expected value, when this is a seed-mode candidate run (expected.bin given), else None."""
    if not os.path.exists('expected.bin'):
        return None
    sys.path.insert(0, os.getcwd())
    import compare_results

    out = {}
    for i, payload in compare_results.values('expected.bin', None).items():
        try:
            out[i] = compare_results.revive(compare_results.load(payload))
        except Exception:
            pass
    return out


class NotEqual(Exception):
    pass


def main():
    expected = seed_expected()
    with open('solution.py', 'rb') as f:
        source = f.read()
    with open('tests.txt', 'rb') as f:
        exprs = f.read().decode('utf-8').split('\0')
    preload(source.decode('utf-8', 'replace') + '\0'.join(exprs))
    signal.signal(signal.SIGALRM, _alarm)
    try:
        code = compile(source, 'solution.py', 'exec', dont_inherit=True)
    except BaseException as e:
        msg = ('source does not compile: ' + describe(e)).encode('utf-8', 'replace')
        for i in range(len(exprs)):
            emit(i, 5, msg)
        return
    for i, expr in enumerate(exprs):
        kind, payload = 1, b''
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
                call = compile(expr, '<test %d>' % i, 'eval', dont_inherit=True)
                namespace = {'__name__': 'solution', '__builtins__': builtins}
                local = namespace if SCOPE == 'module' else {}
                exec(code, namespace, local)
                result = eval(call, namespace, local)
                if expected is not None and i in expected and not deep(exactly_plain, result):
                    if not (expected[i] == result):
                        raise NotEqual('not equal to the expected value (compared by the value\'s own ==, as the seed does)')
                    result = expected[i]
                value = deep(plain, result)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if value is None:
                kind, payload = 2, b''
            else:
                payload = deep(pickle.dumps, value, protocol=5)
                if len(payload) > MAX_VALUE:
                    kind, payload = 4, b'value too large to compare (%d bytes pickled)' % len(payload)
                else:
                    kind = 0
        except CallTimeout:
            kind, payload = 3, ('timed out after %g s' % TIMEOUT).encode()
        except (NotPlain, NotEqual) as e:
            kind, payload = 4, str(e).encode('utf-8', 'replace')
        except BaseException as e:
            kind, payload = 1, describe(e).encode('utf-8', 'replace')
        emit(i, kind, payload)


try:
    main()
finally:
    os._exit(0)  # no atexit hooks, no waiting for threads the code left running
