// What a sandboxed run sees of the sandbox's packages (activities/sandbox/requirements.txt), shared by the bwrap and
// the fallback test files: the pinned versions import, from the packages directory, which sits after the standard
// library on sys.path and cannot be written to; numpy's BLAS and pandas work under the sandbox's limits.
import { readFileSync } from 'node:fs';
import { SANDBOX_REQUIREMENTS, sandboxPackagesDir } from '../../activities/sandbox/sandbox-packages';
import { SANDBOX_PYTHON } from '../../activities/sandbox/python-sandbox';

export const PACKAGES_PROBE = `
import json, sys
import numpy, pandas, dateutil
site = sys.path[-1]
try:
    open(site + "/planted.py", "w").write("x = 1")
    writable = True
except OSError:
    writable = False
m = numpy.arange(16.0).reshape(4, 4)
print(json.dumps({
    "site": site,
    "stdlib_first": sys.path.index(site) > max(i for i, p in enumerate(sys.path) if p.endswith("lib-dynload")),
    "from_site": all(m.__file__.startswith(site + "/") for m in (numpy, pandas, dateutil)),
    "versions": {"numpy": numpy.__version__, "pandas": pandas.__version__},
    "writable": writable,
    "blas": float((m @ m.T).trace()),
    "pandas_sum": int(pandas.Series([1, 2, 3]).sum()),
}))
`;

/** The probe's output when the packages are installed as requirements.txt pins them. */
export function expectedPackages() {
  const pins = Object.fromEntries(
    readFileSync(SANDBOX_REQUIREMENTS, 'utf8')
      .split('\n')
      .map((l) => /^([\w-]+)==(\S+)/.exec(l.trim()))
      .filter((m) => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  return {
    site: sandboxPackagesDir(SANDBOX_PYTHON),
    stdlib_first: true,
    from_site: true,
    versions: { numpy: pins.numpy, pandas: pins.pandas },
    writable: false,
    blas: 1240, // the trace of M·Mᵀ for M = 0..15 as 4×4: the sum of squares
    pandas_sum: 6,
  };
}
