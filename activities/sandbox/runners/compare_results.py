# Compares expected values (reference run) with actual values (candidate run) with Python's `==`, inside a sandbox
# that runs no task code at all. Usage: python3 compare_results.py fixed|seed <index>...
# Inputs in the working directory: expected.bin and actual.bin, frames written by evaluate_calls.py. actual.bin
# is untrusted (the candidate's process wrote it), so values are unpickled with a loader that knows no class but
# `complex`: an object with a rigged __eq__ cannot even be rebuilt here, let alone compared.
# Output on stdout: one JSON object, index -> {"passed": bool, "error": str | null, "reference": bool} (reference:
# the failure lies with the reference's value, not the answer's).
import datetime
import decimal
import fractions
import io
import json
import pickle
import sys


class PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == 'builtins' and name == 'complex':
            return complex
        raise pickle.UnpicklingError('returned a %s.%s, which is not plain data' % (module, name))

    def persistent_load(self, pid):
        raise pickle.UnpicklingError('persistent ids are not plain data')


def values(path, wanted):
    """index -> pickled payload of the first value frame for that index (every index when wanted is None)."""
    with open(path, 'rb') as f:
        data = f.read()
    out, pos = {}, 0
    while pos + 9 <= len(data):
        index = int.from_bytes(data[pos:pos + 4], 'big')
        kind = data[pos + 4]
        length = int.from_bytes(data[pos + 5:pos + 9], 'big')
        pos += 9
        if length > len(data) - pos:
            break
        if (wanted is None or index in wanted) and index not in out and kind == 0:
            out[index] = data[pos:pos + length]
        pos += length
    return out


def load(payload):
    return PlainUnpickler(io.BytesIO(payload)).load()


def array_size(v):
    """Element count of an array as evaluate_calls.py tags it, else None."""
    if type(v) is tuple and len(v) == 3 and v[0] == '__ndarray__':
        n = 1
        for d in v[1]:
            n *= d
        return n
    return None


def seed_array_rule(exp, act):
    """SEED-COMPAT: the seed compares in-process, and `array == x` is elementwise; its `if` then raises ValueError
    (caught: not passed) unless the result has exactly one element, which decides. None when no array is involved."""
    sizes = [n for n in (array_size(exp), array_size(act)) if n is not None]
    if not sizes:
        return None
    if any(n != 1 for n in sizes):
        return 'an array of more than one element (or none): the seed\'s == raises ValueError, not passed'
    return ''


def single(v):
    """A one-element array's element (what the seed's elementwise == then decides by), else the value."""
    if array_size(v) != 1:
        return v
    e = v[2]
    for _ in v[1]:
        e = e[0]
    return e


REVIVE = {
    '__decimal__': lambda s: decimal.Decimal(s),
    '__fraction__': lambda n, d: fractions.Fraction(n, d),
    '__date__': lambda s: datetime.date.fromisoformat(s),
    '__datetime__': lambda s: datetime.datetime.fromisoformat(s),
    '__time__': lambda s: datetime.time.fromisoformat(s),
    '__timedelta__': lambda d, s, us: datetime.timedelta(days=d, seconds=s, microseconds=us),
}


def revive(v):
    """SEED-COMPAT: the standard-library values evaluate_calls.py tags, rebuilt as themselves (trusted stdlib types
    from plain fields), so that == mixes types as the seed's in-process == does: Decimal('0.5') == 0.5 and
    Fraction(1, 2) == 0.5 hold, Decimal('0.1') == 0.1 does not (the float is not exactly 0.1)."""
    t = type(v)
    if t is tuple and len(v) >= 2 and type(v[0]) is str and v[0] in REVIVE:
        try:
            return REVIVE[v[0]](*v[1:])
        except Exception:
            return v
    if t is tuple:
        return tuple(revive(x) for x in v)
    if t is list:
        return [revive(x) for x in v]
    if t is dict:
        return {revive(k): revive(x) for k, x in v.items()}
    if t is set or t is frozenset:
        return t(revive(x) for x in v)
    return v


def main():
    seed = sys.argv[1] == 'seed'
    wanted = {int(a) for a in sys.argv[2:]}
    expected = values('expected.bin', wanted)
    actual = values('actual.bin', wanted)
    sys.setrecursionlimit(10000)
    report = {}
    for i in sorted(wanted):
        if i not in expected or i not in actual:
            report[i] = {'passed': False, 'error': 'missing value'}
            continue
        try:
            exp = load(expected[i])
        except Exception as e:
            report[i] = {'passed': False, 'error': 'reference value unreadable: %s' % e, 'reference': True}
            continue
        try:
            act = load(actual[i])
        except Exception as e:
            report[i] = {'passed': False, 'error': str(e)[:300] if isinstance(e, pickle.UnpicklingError) else 'unreadable value: %s' % type(e).__name__}
            continue
        if seed:
            why = seed_array_rule(exp, act)
            if why:
                report[i] = {'passed': False, 'error': why}
                continue
            if why == '':
                exp, act = single(exp), single(act)
            exp, act = revive(exp), revive(act)
        try:
            # ColBench's rule: the test passes iff expected is not None and expected == actual.
            ok = exp is not None and bool(exp == act)
        except Exception as e:
            report[i] = {'passed': False, 'error': 'comparison failed: %s' % type(e).__name__}
            continue
        report[i] = {'passed': ok, 'error': None if ok else 'wrong result'}
    sys.stdout.write(json.dumps(report))


if __name__ == '__main__':
    main()
