// The order a data build reads records in: by task id, then sample. The shard plan hands them task-major in task-index
// order; `buildData` sorts records it is given in memory, so the same records give the same rows however they came.
export const byTaskAndSample = (a: { taskId: string; sampleIndex: number }, b: { taskId: string; sampleIndex: number }) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.sampleIndex - b.sampleIndex;
