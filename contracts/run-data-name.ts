// Where a run's files live: checkpoints/, logs/, train/, servers/, reports/ and artifacts/runs/ all take this name
// as their run folder. A name's first run keeps the plain name (so runs started before restarts existed, and their
// recorded histories, find their files where they are); `start --restart` number n gets `<name>@restart-<n>`.
// "@" is not allowed in a run name (configs/load.ts), so no other run's files can be there.
export const runDataName = ({ runName, restart }: { runName: string; restart?: number }): string =>
  restart ? `${runName}@restart-${restart}` : runName;
