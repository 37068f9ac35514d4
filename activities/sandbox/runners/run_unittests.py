# Runs a candidate's code against a unittest suite inside the sandbox, the way BigCodeBench's checker does
# (bigcodebench/eval: code and tests share one module "__test__", the suite is class TestCases, the verdict is
# failures + errors). Usage: python3 run_unittests.py [<entry point>]
# Inputs in the working directory: solution.py (the candidate), tests.py (the unittest source).
# Output: JSON lines on the process's original stdout, as soon as each is known:
#   {"start": test} ... {"end": test}                a test began / ended
#   {"issue": "failure" | "error", "test": t, "detail": last traceback line}
#   {"fatal": why}                                   the code could not be loaded (syntax error, import error...)
#   {"done": true, "run": n, "failures": n, "errors": n, "tampered"?: what}   the suite finished
# The code gets /dev/null as stdin/stdout/stderr, so its prints cannot corrupt or flood the report. It shares this
# interpreter with its tests (it has to: the tests call it), so this guards against accidents (prints, exits,
# exceptions) and the obvious patch of unittest, not against code set on subverting the harness; the sandbox
# still bounds what it can do to the host.
import builtins
import json
import os
import shutil
import sys
import tempfile
import traceback
import types
import unittest

OUT = os.dup(1)
_null = os.open('/dev/null', os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.dup2(_null, 2)

MAX_DETAIL = 1000
# Taken before the code runs, so that rebinding unittest's names cannot swap the loader under us.
TestLoader = unittest.TestLoader
HARNESS = (unittest.TestCase, unittest.TestResult, unittest.TestSuite, unittest.TestLoader)


def emit(obj):
    data = (json.dumps(obj) + '\n').encode('utf-8', 'replace')
    view = memoryview(data)
    while view:
        n = os.write(OUT, view)
        view = view[n:]


def last_line(exc_info):
    try:
        lines = ''.join(traceback.format_exception_only(exc_info[0], exc_info[1])).strip().splitlines()
        text = lines[-1] if lines else exc_info[0].__name__
    except BaseException:
        text = getattr(exc_info[0], '__name__', 'exception')
    return text[:MAX_DETAIL]


def describe(e):
    return last_line((type(e), e, None))


def test_name(test):
    try:
        return test.id().split('.')[-1][:200]
    except BaseException:
        return '?'


class Reporting(unittest.TestResult):
    def startTest(self, test):
        super().startTest(test)
        emit({'start': test_name(test)})

    def stopTest(self, test):
        super().stopTest(test)
        emit({'end': test_name(test)})

    def addFailure(self, test, err):
        super().addFailure(test, err)
        emit({'issue': 'failure', 'test': test_name(test), 'detail': last_line(err)})

    def addError(self, test, err):
        super().addError(test, err)
        emit({'issue': 'error', 'test': test_name(test), 'detail': last_line(err)})

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = 'failure' if issubclass(err[0], test.failureException) else 'error'
            emit({'issue': kind, 'test': test_name(test), 'detail': last_line(err)})


def snapshot():
    return {cls: dict(vars(cls)) for cls in HARNESS}


def tampered(before):
    """What the code replaced in unittest, if anything (checked by identity, after the run)."""
    if sys.modules.get('unittest') is not unittest:
        return 'sys.modules["unittest"]'
    for cls in HARNESS:
        if getattr(unittest, cls.__name__, None) is not cls:
            return 'unittest.%s' % cls.__name__
    for cls, attrs in before.items():
        now = vars(cls)
        for name in set(attrs) | set(now):
            if attrs.get(name, None) is not now.get(name, None):
                return '%s.%s' % (cls.__name__, name)
    return None


def load(path, name):
    with open(path, 'rb') as f:
        return compile(f.read(), name, 'exec', dont_inherit=True)


def main():
    entry_point = sys.argv[1] if len(sys.argv) > 1 else ''
    try:
        solution = load('solution.py', 'solution.py')
    except BaseException as e:
        return emit({'fatal': 'the code does not compile: ' + describe(e)})
    try:
        tests = load('tests.py', 'tests.py')
    except BaseException as e:
        return emit({'fatal': 'the tests do not compile: ' + describe(e)})
    before = snapshot()
    module = types.ModuleType('__test__')
    module.__dict__.update({'__builtins__': builtins, '__file__': '__test__.py', '__package__': None})
    sys.modules['__test__'] = module  # tests may patch names in it, as BigCodeBench's do
    # A private, writable working directory: tests often write files (bwrap: the /tmp tmpfs).
    work = tempfile.mkdtemp(prefix='unittests-')
    os.chdir(work)
    try:
        try:
            exec(solution, module.__dict__)
        except BaseException as e:
            return emit({'fatal': 'the code raised on load: ' + describe(e)})
        if entry_point and not callable(module.__dict__.get(entry_point)):
            return emit({'fatal': 'the code does not define %s' % entry_point})
        try:
            exec(tests, module.__dict__)
        except BaseException as e:
            return emit({'fatal': 'the tests raised on load: ' + describe(e)})
        cases = module.__dict__.get('TestCases')
        if not (isinstance(cases, type) and issubclass(cases, unittest.TestCase)):
            return emit({'fatal': 'the tests define no class TestCases (a unittest.TestCase)'})
        result = Reporting()
        TestLoader().loadTestsFromTestCase(cases).run(result)
        report = {'done': True, 'run': result.testsRun, 'failures': len(result.failures), 'errors': len(result.errors)}
        what = tampered(before)
        if what:
            report['tampered'] = what
        emit(report)
    finally:
        os.chdir('/')
        shutil.rmtree(work, ignore_errors=True)


try:
    main()
finally:
    os._exit(0)  # no atexit hooks, no waiting for threads the code left running
