// Every adapter records its trainer's version in the checkpoint lineage the same way: package metadata only
// (importing torch would cost seconds for a version string), "not installed" instead of a failure.
export function packageVersionsCommand(python: string, packages: readonly string[]): string[] {
  const program = `import importlib.metadata as m
def v(p):
    try:
        return m.version(p)
    except m.PackageNotFoundError:
        return "not installed"
print(", ".join(f"{p} {v(p)}" for p in (${packages.map((p) => `'${p}'`).join(', ')})))`;
  return [python, '-c', program];
}
