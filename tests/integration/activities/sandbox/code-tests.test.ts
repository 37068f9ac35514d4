// ColBench's code scorer on the real sandbox: the seed's rule (passed iff the reference's value is not None and
// equals the candidate's), and the ways a candidate could try to pass without being right. Slots 120-139 belong to
// this file (test files run two at a time; a slot is a uid).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  runCodeTests,
  SEED_BLOCKLIST,
  seedFenceStrip,
  stripPythonFence,
  type CodeTestsInput,
} from '../../../../activities/sandbox/code-tests';
import { processesOfSlot } from '../../../../activities/sandbox/python-sandbox';
import { seekerModule } from '../../../helpers/sandbox-seeker';

const SLOT = 120;

const REFERENCE = `
def discount(price, rate, member=False):
    if price < 0:
        raise ValueError("negative price")
    total = price * (1 - rate)
    if member:
        total -= 5
    return round(max(total, 0), 2)
`;

const TESTS = {
  plain: 'discount(100, 0.2)',
  member: 'discount(100, 0.2, member=True)',
  floor: 'discount(3, 0.5, True)',
  zero: 'discount(0, 0.1)',
  big: 'discount(1000, 0.15)',
};

const score = (candidate: string, extra: Partial<CodeTestsInput> = {}) =>
  runCodeTests({ candidate, reference: REFERENCE, testCases: TESTS, functionTimeoutSeconds: 1, slot: SLOT, ...extra });

describe("runCodeTests: the seed's rule", () => {
  it('a correct candidate passes every test', async () => {
    const r = await score(`\`\`\`python\n${REFERENCE}\n\`\`\``);
    expect(r).toMatchObject({ passed: 5, total: 5, fraction: 1, success: true });
    expect(r.tests.map((t) => t.name)).toEqual(Object.keys(TESTS));
    expect(r.rejected).toBeUndefined();
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it('an off-by-one candidate gets a partial fraction', async () => {
    const r = await score(REFERENCE.replace('total -= 5', 'total -= 6'));
    expect(r.passed).toBe(4); // only `member` differs (`floor` clamps to 0 either way)
    expect(r.fraction).toBeCloseTo(0.8);
    expect(r.success).toBe(false);
    expect(r.tests.filter((t) => !t.passed).map((t) => [t.name, t.reason, t.error])).toEqual([['member', 'wrong_value', 'wrong result']]);
    expect(r.reasons).toEqual({ wrong_value: 1, answer_error: 0, timeout: 0, reference_error: 0 });
    expect(r.reason).toBeUndefined();
  });

  it('a syntax error scores 0 and says why', async () => {
    const r = await score('def discount(price, rate, member=False)\n    return price\n');
    expect(r).toMatchObject({ passed: 0, fraction: 0, success: false, reason: 'syntax_error' });
    expect(r.reasons.answer_error).toBe(5);
    for (const t of r.tests) expect(t.error).toMatch(/SyntaxError/);
  });

  it('a missing function scores 0 with NameError', async () => {
    const r = await score('def apply_discount(price, rate, member=False):\n    return 0\n');
    expect(r.passed).toBe(0);
    expect(r.reason).toBeUndefined(); // it compiles: each call fails on its own
    for (const t of r.tests)
      expect(t).toMatchObject({ reason: 'answer_error', error: expect.stringMatching(/NameError: name 'discount' is not defined/) });
  });

  it('an exception in the candidate fails only that test', async () => {
    const r = await score(REFERENCE.replace('if member:', 'if price == 0:\n        raise KeyError("boom")\n    if member:'));
    expect(r.passed).toBe(4);
    expect(r.tests.find((t) => t.name === 'zero')).toMatchObject({ reason: 'answer_error', error: expect.stringMatching(/KeyError/) });
  });

  it('a test whose reference returns None is a reference error: never passed, left out of total unless compat is seed', async () => {
    const reference = 'def f(x):\n    if x > 0:\n        return x\n';
    const input = { candidate: reference, reference, testCases: { pos: 'f(2)', none: 'f(-1)' }, slot: SLOT };
    const r = await runCodeTests(input);
    expect(r.tests.find((t) => t.name === 'none')).toMatchObject({
      passed: false,
      reason: 'reference_error',
      error: expect.stringMatching(/reference returned None/),
    });
    expect(r).toMatchObject({ passed: 1, total: 1, success: true, reasons: { reference_error: 1 } });
    // SEED-COMPAT: the seed divides by every test, so the answer cannot reach 1.
    expect(await runCodeTests({ ...input, compat: 'seed' })).toMatchObject({ passed: 1, total: 2, fraction: 0.5, success: false });
  });

  it('a test whose reference raises is a reference error, not a failure of the answer', async () => {
    const r = await score(REFERENCE, { testCases: { bad: 'discount(-1, 0.1)', ok: 'discount(10, 0.5)' } });
    expect(r.tests).toEqual([
      { name: 'bad', passed: false, reason: 'reference_error', error: 'reference raised: ValueError: negative price' },
      { name: 'ok', passed: true },
    ]);
    expect(r).toMatchObject({ passed: 1, total: 1, success: true });
    expect(r.reason).toBeUndefined();
  });

  it('a reference that fails on every test leaves nothing to score, and says so', async () => {
    const r = await score('def discount(*a, **k):\n    return 1\n', { reference: 'def discount(*a, **k):\n    return 1 / 0\n' });
    expect(r).toMatchObject({ passed: 0, total: 0, fraction: 0, success: false, reason: 'reference_failed' });
    expect(r.reasons).toEqual({ wrong_value: 0, answer_error: 0, timeout: 0, reference_error: 5 });
    expect(r.tests.every((t) => /ZeroDivisionError/.test(t.error ?? ''))).toBe(true);
  });

  it('uses Python equality: 1 == 1.0 and namedtuple == tuple pass, 0.1 + 0.2 != 0.3 fails', async () => {
    const reference =
      'from collections import namedtuple\nP = namedtuple("P", "x y")\ndef f(k):\n    return {"int": 1, "pair": P(1, 2), "float": 0.3, "set": {1, 2}, "dict": {"a": [1, (2, 3)]}}[k]\n';
    const candidate =
      'def f(k):\n    return {"int": 1.0, "pair": (1, 2), "float": 0.1 + 0.2, "set": frozenset({2, 1}), "dict": {"a": [1, (2, 3)]}}[k]\n';
    const r = await runCodeTests({
      candidate,
      reference,
      testCases: { int: 'f("int")', pair: 'f("pair")', float: 'f("float")', set: 'f("set")', dict: 'f("dict")' },
      slot: SLOT,
    });
    expect(Object.fromEntries(r.tests.map((t) => [t.name, t.passed]))).toEqual({
      int: true,
      pair: true,
      float: false,
      set: true,
      dict: true,
    });
  });

  it('compares Decimal, Fraction, date, datetime and timedelta results by their own ==, in both modes', async () => {
    const reference = `from decimal import Decimal\nfrom fractions import Fraction\nimport datetime as dt\ndef money(x):\n    return Decimal(x)\ndef ratio(a, b):\n    return Fraction(a, b)\ndef day(y, m, d):\n    return dt.date(y, m, d)\ndef stamp(h):\n    return dt.datetime(2024, 1, 1, h)\ndef span(h):\n    return dt.timedelta(hours=h)\n`;
    const tests = {
      money: 'money("1.0")',
      ratio: 'ratio(2, 4)',
      day: 'day(2024, 2, 29)',
      stamp: 'stamp(7)',
      span: 'span(36)',
      wrong: 'money("2.5")',
    };
    // Equal values in other spellings pass (1.00 == 1.0, 1/2 == 2/4, 36 h == 1 day 12 h); one wrong value fails.
    const candidate = `def money(x):\n    from decimal import Decimal\n    return Decimal("1.00") if x == "1.0" else Decimal("2.4")\ndef ratio(a, b):\n    from fractions import Fraction\n    return Fraction(1, 2)\ndef day(y, m, d):\n    import datetime\n    return datetime.date.fromisoformat("2024-02-29")\ndef stamp(h):\n    import datetime\n    return datetime.datetime(2024, 1, 1, 7, 0)\ndef span(h):\n    import datetime\n    return datetime.timedelta(days=1, hours=12)\n`;
    const fixed = await runCodeTests({ candidate, reference, testCases: tests, slot: SLOT });
    expect(Object.fromEntries(fixed.tests.map((t) => [t.name, t.passed]))).toEqual({
      money: true,
      ratio: true,
      day: true,
      stamp: true,
      span: true,
      wrong: false,
    });
    // Under the seed's function scope the reference's module-level imports are NameErrors: nothing counts.
    expect((await runCodeTests({ candidate, reference, testCases: tests, slot: SLOT, compat: 'seed' })).passed).toBe(0);
  });

  it('runs every test on a fresh copy of the source, as the seed does (no state leaks between tests)', async () => {
    const src = 'calls = []\ndef f(x):\n    calls.append(x)\n    return len(calls)\n';
    const r = await runCodeTests({ candidate: src, reference: src, testCases: { a: 'f(1)', b: 'f(2)', c: 'f(3)' }, slot: SLOT });
    expect(r.passed).toBe(3);
  });

  it('times out one slow test without losing the others', async () => {
    const r = await score(REFERENCE.replace('if member:', 'while price == 0:\n        pass\n    if member:'));
    expect(r.passed).toBe(4);
    expect(r.tests.find((t) => t.name === 'zero')).toEqual({
      name: 'zero',
      passed: false,
      reason: 'timeout',
      error: 'timed out after 1 s',
    });
  });

  it('a candidate that swallows the per-call timer is stopped by the wall-clock limit; earlier tests still count', async () => {
    const r = await score(
      REFERENCE.replace(
        'if member:',
        'if price == 0:\n        while True:\n            try:\n                n = 0\n                while True:\n                    n += 1\n            except BaseException:\n                pass\n    if member:',
      ),
    );
    expect(r.tests.slice(0, 3).every((t) => t.passed)).toBe(true);
    expect(r.tests.find((t) => t.name === 'zero')).toMatchObject({
      reason: 'timeout',
      error: expect.stringMatching(/no result: the candidate's run stopped \(timed out/),
    });
    expect(r.passed).toBe(3);
  });

  it('ignores what the candidate prints', async () => {
    const r = await score(
      REFERENCE.replace('total = price', 'print("noise" * 10000)\n    import sys\n    print("more", file=sys.stderr)\n    total = price'),
    );
    expect(r.passed).toBe(5);
  });

  it('seedFenceStrip: the seed\'s split on "```python", then on a bare fence', () => {
    expect(seedFenceStrip('Here:\n```python\nx = 1\n```\nDone')).toBe('\nx = 1\n');
    expect(seedFenceStrip('```py\nx = 1\n```')).toBe('py\nx = 1\n');
    expect(seedFenceStrip('x = 1')).toBe('x = 1');
  });

  it('strips a ```python fence, or a bare one', () => {
    expect(stripPythonFence('Here you go:\n```python\ndef f():\n    return 1\n```\nDone.')).toBe('def f():\n    return 1');
    expect(stripPythonFence('```\nx = 1\n```')).toBe('x = 1');
    expect(stripPythonFence('def g(): pass')).toBe('def g(): pass');
  });

  it('an empty test set scores 0 without running anything', async () => {
    expect(await runCodeTests({ candidate: 'x = 1', reference: 'x = 1', testCases: {}, slot: SLOT })).toEqual({
      passed: 0,
      total: 0,
      fraction: 0,
      success: false,
      tests: [],
      reasons: { wrong_value: 0, answer_error: 0, timeout: 0, reference_error: 0 },
    });
  });
});

describe('runCodeTests: numpy values', () => {
  const reference = [
    'def f(k):',
    '    import numpy as np',
    '    return {"int": np.int64(3), "bool": np.bool_(True), "float": np.float64(0.5), "str": np.str_("a"),',
    '            "arr": np.array([1.5, 2.0]), "grid": np.arange(4).reshape(2, 2), "one": np.array([7]), "empty": np.array([])}[k]',
  ].join('\n');
  const candidate = [
    'def f(k):',
    '    import numpy',
    '    return {"int": 3, "bool": True, "float": 0.5, "str": "a", "arr": numpy.array([1.5, 2]),',
    '            "grid": numpy.array([[0, 1], [2, 3]]), "one": numpy.array([7.0]), "empty": numpy.zeros(0)}[k]',
  ].join('\n');
  const testCases = Object.fromEntries(['int', 'bool', 'float', 'str', 'arr', 'grid', 'one', 'empty'].map((k) => [k, `f("${k}")`]));
  const passes = (r: { tests: { name: string; passed: boolean }[] }) => Object.fromEntries(r.tests.map((t) => [t.name, t.passed]));

  it('fixed: numpy scalars equal their Python values; arrays are equal by shape and elements', async () => {
    const r = await runCodeTests({ candidate, reference, testCases, slot: SLOT });
    expect(passes(r)).toEqual({ int: true, bool: true, float: true, str: true, arr: true, grid: true, one: true, empty: true });
    // A list is not an array, and a flattened grid is not the grid.
    const other = candidate.replace('numpy.array([1.5, 2])', '[1.5, 2.0]').replace('numpy.array([[0, 1], [2, 3]])', 'numpy.arange(4)');
    const o = await runCodeTests({ candidate: other, reference, testCases: { arr: testCases.arr, grid: testCases.grid }, slot: SLOT });
    expect(o.tests.map((t) => t.reason)).toEqual(['wrong_value', 'wrong_value']);
  });

  it("seed: the seed's == on arrays raises unless exactly one element decides, so only the one-element array passes", async () => {
    const r = await runCodeTests({ candidate, reference, testCases, slot: SLOT, compat: 'seed' });
    expect(passes(r)).toEqual({ int: true, bool: true, float: true, str: true, arr: false, grid: false, one: true, empty: false });
    expect(r.tests.find((t) => t.name === 'arr')).toMatchObject({ reason: 'wrong_value', error: expect.stringMatching(/ValueError/) });
  });

  it("imports a package the answer names before its first call's timer, as the seed's process has it imported", async () => {
    // The module-level line runs before the answer's own import: it sees pandas only if the runner imported it first.
    const sees = 'import sys\nSEEN = "pandas" in sys.modules\ndef f():\n    import pandas\n    return SEEN\n';
    expect(
      (await runCodeTests({ candidate: sees, reference: 'def f():\n    return True\n', testCases: { t: 'f()' }, slot: SLOT })).passed,
    ).toBe(1);
    // A source that names no package gets none (each costs 0.1-0.5 s to import).
    const plain = 'import sys\ndef f():\n    return sorted(m for m in ("num" + "py", "pan" + "das") if m in sys.modules)\n';
    expect(
      (await runCodeTests({ candidate: plain, reference: 'def f():\n    return []\n', testCases: { t: 'f()' }, slot: SLOT })).passed,
    ).toBe(1);
  });
});

describe('runCodeTests: compat', () => {
  const usesOs = `import os\n${REFERENCE}`;

  it("exports the seed's blocklist", () => {
    expect(SEED_BLOCKLIST).toEqual([
      'import os',
      'from os',
      'import sys',
      'from sys',
      'sudo',
      'transformers',
      'exit(',
      'quit(',
      'argparse',
    ]);
  });

  it('seed: refuses an answer containing blocklisted text, scoring 0 and saying which', async () => {
    const r = await score(`${usesOs}\n# exit(0)\n`, { compat: 'seed' });
    expect(r).toMatchObject({ passed: 0, total: 5, fraction: 0, success: false, reason: 'blocklist' });
    expect(r.rejected).toBe('forbidden text (seed blocklist): "import os", "exit("');
  });

  it('fixed (default): the same answer runs in the sandbox and is scored on its merits', async () => {
    const r = await score(usesOs);
    expect(r.rejected).toBeUndefined();
    expect(r.passed).toBe(5);
  });

  it('seed: the blocklist reads the whole answer, prose included (the seed checks before taking the code out)', async () => {
    const answer = `I avoided sys.exit() here.\n\`\`\`python\n${REFERENCE}\n\`\`\``;
    expect((await score(answer, { compat: 'seed' })).rejected).toBe('forbidden text (seed blocklist): "exit("');
    expect((await score(answer)).passed).toBe(5);
  });

  it('seed: a ```py fence keeps its tag line as code, which fails; fixed mode reads the tag', async () => {
    const answer = `\`\`\`py\n${REFERENCE}\n\`\`\``;
    const seed = await score(answer, { compat: 'seed' });
    expect(seed.passed).toBe(0);
    expect(seed.tests[0].error).toMatch(/NameError: name 'py' is not defined/);
    expect((await score(answer)).passed).toBe(5);
  });

  it('seed: the answer runs as exec inside a function, so a module-level import or helper is a NameError', async () => {
    const helper = `from math import floor\nMEMBER_BONUS = 5\ndef discount(price, rate, member=False):\n    if price < 0:\n        raise ValueError("negative price")\n    total = price * (1 - rate)\n    if member:\n        total -= MEMBER_BONUS\n    return round(max(total, 0), 2) if floor(1.5) == 1 else None\n`;
    const seed = await score(helper, { compat: 'seed' });
    expect(seed.passed).toBe(0);
    expect(seed.tests.every((t) => /NameError/.test(t.error ?? ''))).toBe(true);
    expect((await score(helper)).passed).toBe(5);
    // A self-contained function is unaffected, and the reference runs under the same rule.
    expect((await score(REFERENCE, { compat: 'seed' })).passed).toBe(5);
  });
});

describe('runCodeTests: a candidate cannot fake a pass', () => {
  it('an object whose __eq__ always says True does not pass', async () => {
    const r = await score(
      'class Yes:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n    __hash__ = object.__hash__\ndef discount(*a, **k):\n    return Yes()\n',
    );
    expect(r.passed).toBe(0);
    for (const t of r.tests) expect(t).toMatchObject({ reason: 'wrong_value', error: expect.stringMatching(/not plain data/) });
  });

  it('a float/str/list subclass with a rigged __eq__ is compared by its real value', async () => {
    const r = await score('class F(float):\n    def __eq__(self, other): return True\ndef discount(*a, **k):\n    return F(-1)\n');
    expect(r.passed).toBe(0);
    for (const t of r.tests) expect(t.error).toBe('wrong result');
  });

  it('tampering with the runner (patching builtins.type so a rigged object gets pickled as is) does not help', async () => {
    const r = await score(
      'import builtins\n' +
        'class Yes(float):\n    def __eq__(self, other): return True\n    def __reduce__(self): return (Yes, (0.0,))\n' +
        'import sys, types\nsys.modules["solution"] = types.ModuleType("solution")\nsys.modules["solution"].Yes = Yes\n' +
        '_type = builtins.type\n' +
        'builtins.type = lambda *a: float if len(a) == 1 and _type(a[0]) is Yes else _type(*a)\n' +
        'def discount(*a, **k):\n    return Yes(-1)\n',
    );
    expect(r.passed).toBe(0);
    for (const t of r.tests) expect(t.error).toMatch(/solution\.Yes, which is not plain data/);
  });

  it('forged result frames carrying a malicious pickle are refused, not executed or trusted', async () => {
    // Writes a frame for every test straight to every descriptor, with a pickle that would call os.system, and a
    // second one rebuilding a rigged class; then exits before the runner can write its own.
    const r = await score(
      'import os, pickle\n' +
        'class Evil:\n    def __reduce__(self): return (os.system, ("touch /tmp/pwned-by-candidate",))\n' +
        'class Yes:\n    def __eq__(self, o): return True\n' +
        'import sys, types\nsys.modules["solution"] = types.ModuleType("solution")\nsys.modules["solution"].Yes = Yes\n' +
        'for payload in (pickle.dumps(Evil(), protocol=5), pickle.dumps(Yes(), protocol=5)):\n' +
        '    for i in range(5):\n' +
        '        frame = i.to_bytes(4, "big") + b"\\x00" + len(payload).to_bytes(4, "big") + payload\n' +
        '        for fd in range(3, 20):\n' +
        '            try: os.write(fd, frame)\n' +
        '            except OSError: pass\n' +
        'os._exit(0)\n',
    );
    expect(r.passed).toBe(0);
    for (const t of r.tests) expect(t.error).toMatch(/not plain data/);
    expect(existsSync('/tmp/pwned-by-candidate')).toBe(false);
  });

  it('never gets to read the reference: it searches every reachable file and /proc and finds nothing', async () => {
    const marker = `REFMARK${randomBytes(6).toString('hex')}`;
    const secret = `secret-${randomBytes(8).toString('hex')}`;
    const reference = `# ${marker}\ndef solve():\n    return ${JSON.stringify(secret)}\n`;
    const candidate =
      seekerModule(marker) +
      '\nimport re as _re\n' +
      'def solve():\n' +
      '    found, around, seen = seek()\n' +
      '    for text in around:\n' +
      '        text = text[text.find(' +
      JSON.stringify(marker.slice(0, 4)) +
      ' + ' +
      JSON.stringify(marker.slice(4)) +
      '):]\n' +
      '        m = _re.search(r\'return "([^"]+)"\', text)\n' +
      '        if m:\n' +
      '            return m.group(1)\n' +
      '    return "not found in %d files" % seen\n';
    // The scan reads up to 20 000 files: its per-call budget is generous, so a slow machine cannot turn "found
    // nothing" into a timeout (which would fail this test, or the control, for the wrong reason).
    const scanBudget = 120;
    const r = await runCodeTests({ candidate, reference, testCases: { leak: 'solve()' }, functionTimeoutSeconds: scanBudget, slot: SLOT });
    expect(r.tests[0]).toEqual({ name: 'leak', passed: false, reason: 'wrong_value', error: 'wrong result' });
    // Positive control: the same candidate does pass when the reference is where it can look (its own source).
    const control = await runCodeTests({
      candidate: `${candidate}\n${reference.replace('def solve', 'def _unused')}`,
      reference,
      testCases: { leak: 'solve()' },
      functionTimeoutSeconds: scanBudget,
      slot: SLOT,
    });
    expect(control.tests[0].passed).toBe(true);
  });

  it('a crashing candidate (abort, segfault) only fails its own tests', async () => {
    const abort = await score('import os\ndef discount(*a, **k):\n    os.abort()\n');
    expect(abort.passed).toBe(0);
    expect(abort.tests[0]).toMatchObject({
      reason: 'answer_error',
      error: expect.stringMatching(/no result: the candidate's run stopped \(killed by SIG/),
    });
    const segv = await score('import ctypes\ndef discount(*a, **k):\n    return ctypes.string_at(0)\n');
    expect(segv.passed).toBe(0);
    expect(segv.tests[0].error).toMatch(/killed by SIGSEGV/);
    expect((await score(REFERENCE)).passed).toBe(5);
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it('a fork bomb in the candidate is contained and leaves no process behind', async () => {
    const r = await score('import os\ndef discount(*a, **k):\n    while True:\n        try: os.fork()\n        except OSError: pass\n', {
      testCases: { one: 'discount(1, 0)' },
    });
    expect(r.passed).toBe(0);
    expect(processesOfSlot(SLOT)).toEqual([]);
  });
});
