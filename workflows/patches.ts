// Every patch the workflows ask, once. A patch marks the histories of runs started after a workflow change, so a
// replay of an older run takes the branch that run took (https://docs.temporal.io/develop/typescript/versioning).
// Every patched() and deprecatePatch() call names its id from here (tests/unit/workflows/patches.test.ts).
//
// Retiring a patch takes three steps, each its own release:
//   1. patched(id): both branches, while runs started before the change may be open;
//   2. deprecatePatch(id), the old branch deleted: once no open run can lack the marker (every run started before
//      `since` has closed) and no history in tests/histories needs the old branch (re-record or drop those first);
//   3. remove the call and the entry: once no open run was started by code that still asked patched(id).
// `oldBranchNeededBy` is measured: the patch made to take its new branch always (deprecatePatch(id) then true), the
// replay test lists the histories that fail. Replay compares commands, not their inputs: a history absent here may
// still have sent different inputs in its old branch.

export interface Patch {
  /** The marker's name in histories: it never changes. */
  readonly id: string;
  /** What the new branch does (and what runs started before it do instead). */
  readonly changed: string;
  /** The commit that added it: runs started by earlier code lack its marker. */
  readonly since: string;
  /** The recorded histories (tests/histories) that replay only with its old branch. */
  readonly oldBranchNeededBy: readonly string[];
  /** Step 1 (`patched`) or step 2 (`deprecated`: deprecatePatch, no old branch) of its retirement. */
  readonly stage: 'patched' | 'deprecated';
}

/** The iteration histories recorded before the iteration told the loop of each finished shard. */
const ITERATIONS_BEFORE_LIVE_PROGRESS = [
  'iteration-colbench-learned-critic.json',
  'iteration-colbench-model-roles.json',
  'iteration-colbench-recipe-needs.json',
  'iteration-coral-budget.json',
  'iteration-coral-model-roles.json',
  'iteration-coral-pause-release-v1.json',
  'iteration-coral-recipe-needs.json',
  'iteration-coral-redeploy-lost-servers-v1.json',
  'iteration-coral-restart-v1.json',
  'iteration-coral-retry-config-v1.json',
  'iteration-coral-retry-from-generate.json',
  'iteration-coral-ui-visibility.json',
  'iteration-debate-model-roles.json',
  'iteration-debate-recipe-needs.json',
  'iteration-debate-retry-role.json',
  'iteration-debate-roles-summary-v1.json',
] as const;

export const PATCHES = {
  modelRoles: {
    id: 'model-roles-v1',
    changed: 'one server per distinct checkpoint and one trainer per trained role (before: one model served and trained)',
    since: 'a2121b3',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  visible: {
    id: 'ui-visibility-v1',
    changed: 'activity summaries and stage reports to the loop, seen in the Temporal UI',
    since: 'c4d8177',
    oldBranchNeededBy: ['iteration-coral.json'],
    stage: 'patched',
  },
  declaresNeeds: {
    id: 'recipe-needs-v1',
    changed: "the planning activity says what the recipe needs (before: decided by the recipe's name, legacy-needs.ts)",
    since: '8afb9f0',
    oldBranchNeededBy: ['iteration-coral-ui-visibility.json', 'iteration-coral.json'],
    stage: 'patched',
  },
  budgets: {
    id: 'budget-v1',
    changed: "the run's `budget`: spend per stage and role, a stop at the next shard boundary",
    since: '2196b07',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  retryConfig: {
    id: 'retry-config-v1',
    changed:
      "a retry's config holds for the later iterations too, and a changed baseCheckpoint is served while nothing trained (before: it held for the retried iteration only); asked by the loop and the iteration",
    since: '1b19774',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  exactBudgets: {
    id: 'exact-budget-v1',
    changed:
      'every LLM call is checked against the budget before it is sent (activities/llm/budget-ledger.ts) and generate shows the spend from its start (before: checked at shard boundaries only)',
    since: '7132f94',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  liveProgress: {
    id: 'live-progress-v1',
    changed: 'the loop hears of each finished shard (live-progress.ts), not only of stage changes',
    since: '2e87a67',
    oldBranchNeededBy: ITERATIONS_BEFORE_LIVE_PROGRESS,
    stage: 'patched',
  },
  planToLoop: {
    id: 'plan-to-loop-v1',
    changed:
      "the loop hears of generate's plan when it is made, so its page shows N of TOTAL before the first shard ends (before: with the first finished shard)",
    since: '8ecdc3e',
    oldBranchNeededBy: [...ITERATIONS_BEFORE_LIVE_PROGRESS, 'iteration-coral-live-progress-v1.json'],
    stage: 'patched',
  },
  trainedScorers: {
    id: 'trained-scorers-v1',
    changed: "the recipe's scorer roles (SWEET-RL's learned critic) trained and served inside build-data",
    since: '5c82c0e',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  // Step 2 since issue 31 ("durable code that sheds its past"): remove once no run started before that is open.
  rolesInIterationSummary: {
    id: 'iteration-roles-summary-v1',
    changed: "an iteration child's summary names every role's checkpoint (before: the primary role's only)",
    since: 'f8bf90d',
    oldBranchNeededBy: [],
    stage: 'deprecated',
  },
  tracking: {
    id: 'tracking-v1',
    changed: "the loop logs finished iterations to the config's `tracking:` trackers",
    since: 'c4d8177',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  gpuPlacement: {
    id: 'gpu-placement-v1',
    changed: "gpu work of a config that places it goes to its class's queue (contracts/placement.ts; before: the generic one)",
    since: '506b6d8',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  redeployLostServers: {
    id: 'redeploy-lost-servers-v1',
    changed: 'a lost loop-served model server is deployed again (before: waited for as an outage)',
    since: 'de592b2',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  configByRef: {
    id: 'config-by-ref-v1',
    changed:
      "the iteration's config is stored once (keepConfig) and activity inputs carry its reference (before: every input carried the whole config, once per shard in history)",
    since: '8c87baa',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
  pauseReleasesServers: {
    id: 'pause-releases-servers-v1',
    changed: 'a paused iteration stops its model servers (before: they stayed up while paused)',
    since: '1b19774',
    oldBranchNeededBy: [],
    stage: 'patched',
  },
} as const satisfies Record<string, Patch>;
