// The layers, read top-down: cli/ workers/ scripts/ → configs/schema.ts (composition root) → workflows/ →
// activities/stages/ → activities/recipes/ → activities' domain folders → contracts/ (what every layer shares).
// `npm run lint` fails on an import that runs upward. Rules: https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'contracts-at-the-bottom',
      comment: 'contracts/ is what every layer shares: it imports nothing of the project but itself.',
      severity: 'error',
      from: { path: '^contracts/' },
      to: { path: '^(activities|workflows|cli|configs|workers|scripts)/' },
    },
    {
      name: 'activities-below-workflows',
      comment: 'Activities never import the workflows, the CLI, workers, scripts or the config composition root.',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^(workflows|cli|workers|scripts)/|^configs/(schema|load)\\.ts$' },
    },
    {
      name: 'workflows-import-only-types-from-activities',
      comment: 'Workflow code runs in the deterministic sandbox: it may name activity types, never load activity code.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-below-the-entry-points',
      comment: 'Workflows are started by the CLI and run by workers; they never import them.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^(cli|workers|scripts)/|^configs/(schema|load)\\.ts$' },
    },
    {
      name: 'cli-not-scripts',
      comment: 'scripts/ holds developer and benchmark scripts; the CLI a user runs does not depend on them.',
      severity: 'error',
      from: { path: '^(cli|workers|workflows|configs)/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(contracts|activities|workflows|cli|configs|workers|scripts)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
