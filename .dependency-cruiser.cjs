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
      name: 'stages-resolve-the-recipe',
      comment:
        'Only the stage activities (and the activity factory, and the simulator process entry) look up the config\'s ' +
        'recipe; the domain folders below get its RecipeDefinition or what they need of it passed in.',
      severity: 'error',
      from: { path: '^activities/', pathNot: '^activities/(stages/|index\\.ts$|recipes/runtime\\.ts$|serving/simulator-main\\.ts$)' },
      to: { path: '^activities/recipes/(runtime|registry)\\.ts$' },
    },
    {
      name: 'stages-on-top-of-activities',
      comment: 'The stages are what the workflows schedule; the domain folders and recipes never call them.',
      severity: 'error',
      from: { path: '^activities/', pathNot: '^activities/(stages/|index\\.ts$)' },
      to: { path: '^activities/stages/' },
    },
    {
      name: 'domains-name-no-recipe',
      comment: 'A recipe is its folder plus its registry line: the domain folders may use the plug-in interface (recipes/types.ts) and the recipes\' shared helpers, never one recipe\'s folder.',
      severity: 'error',
      from: { path: '^activities/', pathNot: '^activities/recipes/' },
      to: { path: '^activities/recipes/(?!shared/)[^/]+/' },
    },
    {
      name: 'storage-below-artifacts',
      comment: 'The artifact store is built on the object stores (storage/), never the other way round.',
      severity: 'error',
      from: { path: '^activities/storage/' },
      to: { path: '^activities/artifacts/' },
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
