# Compares expected values (reference run) with actual values (candidate run) with Python's `==`, inside a sandbox
# that runs no task code at all. Usage: python3 compare_results.py <index>...
# Inputs in the working directory: expected.bin and actual.bin, frames written by evaluate_calls.py. actual.bin
# is untrusted (the candidate's process wrote it), so values are unpickled with a loader that knows no class but
# `complex`: an object with a rigged __eq__ cannot even be rebuilt here, let alone compared.
# Output on stdout: one JSON object, index -> {"passed": bool, "error": str | null}.
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
    """index -> pickled payload of the first value frame for that index."""
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
        if index in wanted and index not in out and kind == 0:
            out[index] = data[pos:pos + length]
        pos += length
    return out


def load(payload):
    return PlainUnpickler(io.BytesIO(payload)).load()


def main():
    wanted = {int(a) for a in sys.argv[1:]}
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
            report[i] = {'passed': False, 'error': 'reference value unreadable: %s' % e}
            continue
        try:
            act = load(actual[i])
        except Exception as e:
            report[i] = {'passed': False, 'error': str(e)[:300] if isinstance(e, pickle.UnpicklingError) else 'unreadable value: %s' % type(e).__name__}
            continue
        try:
            # ColBench's rule: the test passes iff expected is not None and expected == actual.
            ok = exp is not None and bool(exp == act)
        except Exception as e:
            report[i] = {'passed': False, 'error': 'comparison failed: %s' % type(e).__name__}
            continue
        report[i] = {'passed': ok, 'error': None if ok else 'wrong result'}
    sys.stdout.write(json.dumps(report))


main()
