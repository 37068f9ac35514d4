// The order `buildData` reads records in: by task id, then sample, so records in memory give the same rows in the same
// order however they came. The streamed build gets them task-major in task-index order (the shard plan): the same rows,
// its files listing the tasks in that order.
export const byTaskAndSample = (a: { taskId: string; sampleIndex: number }, b: { taskId: string; sampleIndex: number }) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.sampleIndex - b.sampleIndex;
