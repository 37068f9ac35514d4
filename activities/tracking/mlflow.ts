// MLflow over its REST API (https://mlflow.org/docs/latest/api_reference/rest-api.html), from Node: no Python
// client on the worker. One MLflow run per collab-loop run, found again by its `collab-loop.run` tag, so a retried
// or resumed activity continues the same MLflow run. Parameters are logged once, when the run is created (MLflow
// refuses to change a parameter); each iteration's metrics at step = iteration with the iteration's end time
// (MLflow ignores a metric logged twice with the same key, value, step and time), after which the tag
// `collab-loop.logged-through` moves on; the report goes through the server's artifact proxy.
import type { MlflowTracking } from './mlflow-options';
import type { TrackingPayload } from './payload';
import { httpFailure, trackerConfigError, trackerUnavailable } from './tracker-errors';

const FIELD = 'tracking.mlflow';
export const RUN_TAG = 'collab-loop.run';
export const LOGGED_TAG = 'collab-loop.logged-through';
/** log-batch limits of the REST API. */
const MAX_METRICS = 1000;
const MAX_PARAMS = 100;
const MAX_TAGS = 100;

type Tag = { key: string; value: string };
interface RunInfo {
  run_id: string;
  artifact_uri: string;
}
interface Run {
  info: RunInfo;
  data?: { tags?: Tag[] };
}

class MlflowApi {
  constructor(
    private readonly base: string,
    private readonly token: string | undefined,
    /** Aborts every request at the tracker's deadline (bounded-write.ts). */
    private readonly signal: AbortSignal,
  ) {}

  async request<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
    raw?: { contentType: string },
  ): Promise<{ status: number; json: T & { error_code?: string } }> {
    const url = `${this.base.replace(/\/+$/, '')}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          'content-type': raw?.contentType ?? 'application/json',
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        },
        body: body === undefined ? undefined : raw ? (body as string) : JSON.stringify(body),
        signal: this.signal,
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw trackerUnavailable(`cannot reach MLflow at ${this.base} (${cause})`);
    }
    const text = await res.text();
    let json: T & { error_code?: string };
    try {
      json = (text ? JSON.parse(text) : {}) as T & { error_code?: string };
    } catch {
      json = {} as T & { error_code?: string };
    }
    if (!res.ok && json.error_code !== 'RESOURCE_DOES_NOT_EXIST' && json.error_code !== 'RESOURCE_ALREADY_EXISTS')
      throw httpFailure(`${FIELD}.trackingUri`, `MLflow ${method} ${path.split('?')[0]}`, res.status, text);
    return { status: res.status, json };
  }
}

async function experimentId(api: MlflowApi, name: string): Promise<string> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const got = await api.request<{ experiment?: { experiment_id: string } }>(
      'GET',
      `/api/2.0/mlflow/experiments/get-by-name?experiment_name=${encodeURIComponent(name)}`,
    );
    if (got.json.experiment) return got.json.experiment.experiment_id;
    const made = await api.request<{ experiment_id?: string }>('POST', '/api/2.0/mlflow/experiments/create', { name });
    if (made.json.experiment_id) return made.json.experiment_id;
    // RESOURCE_ALREADY_EXISTS: another worker created it in between; read it again.
  }
  throw trackerUnavailable(`MLflow experiment "${name}" could neither be found nor created`);
}

/** The MLflow run of this collab-loop run, created (with its parameters) the first time. */
async function findOrCreateRun(api: MlflowApi, expId: string, p: TrackingPayload, startTime: number): Promise<Run> {
  const found = await api.request<{ runs?: Run[] }>('POST', '/api/2.0/mlflow/runs/search', {
    experiment_ids: [expId],
    filter: `tags.\`${RUN_TAG}\` = '${p.runName}'`,
    max_results: 1,
  });
  if (found.json.runs?.length) return found.json.runs[0];
  const tags: Tag[] = [
    { key: RUN_TAG, value: p.runName },
    { key: 'collab-loop.recipe', value: p.recipe },
  ];
  const made = await api.request<{ run: Run }>('POST', '/api/2.0/mlflow/runs/create', {
    experiment_id: expId,
    run_name: p.runName,
    start_time: startTime,
    tags,
  });
  const run = made.json.run;
  const params = Object.entries(p.params).map(([key, value]) => ({ key, value }));
  for (let i = 0; i < params.length; i += MAX_PARAMS)
    await api.request('POST', '/api/2.0/mlflow/runs/log-batch', { run_id: run.info.run_id, params: params.slice(i, i + MAX_PARAMS) });
  return run;
}

/** Where the proxy keeps the run's artifacts: `mlflow-artifacts:/1/<run>/artifacts` (or with `//host:port`). */
function proxiedArtifactPath(uri: string): string | undefined {
  const m = /^mlflow-artifacts:(?:\/\/[^/]*)?\/?(.*)$/.exec(uri);
  return m ? m[1].replace(/\/+$/, '') : undefined;
}

async function uploadArtifact(api: MlflowApi, run: RunInfo, name: string, content: string, contentType: string): Promise<void> {
  const dir = proxiedArtifactPath(run.artifact_uri);
  if (dir === undefined)
    throw trackerConfigError(
      `${FIELD}.uploadReport`,
      `the MLflow server keeps this run's artifacts at ${run.artifact_uri}, which collab-loop can write only through MLflow's artifact proxy (\`mlflow server\` serves artifacts by default; or set uploadReport: false)`,
    );
  const path = `${dir}/${name}`.split('/').map(encodeURIComponent).join('/');
  await api.request('PUT', `/api/2.0/mlflow-artifacts/artifacts/${path}`, content, { contentType });
}

/** The run's page in MLflow's UI (its routes: `#/experiments/<id>/runs/<run id>`). */
export const mlflowRunPage = (trackingUri: string, experimentId: string, runId: string) =>
  `${trackingUri.replace(/\/+$/, '')}/#/experiments/${experimentId}/runs/${runId}`;

export async function logToMlflow(
  o: MlflowTracking,
  p: TrackingPayload,
  report: () => Promise<string>,
  signal: AbortSignal,
): Promise<{ runId: string; experimentId: string }> {
  let token: string | undefined;
  if (o.tokenEnv) {
    token = process.env[o.tokenEnv];
    if (!token) throw trackerConfigError(`${FIELD}.tokenEnv`, `environment variable ${o.tokenEnv} is not set on this worker`);
  }
  const api = new MlflowApi(o.trackingUri, token, signal);
  const expId = await experimentId(api, o.experiment);
  const run = await findOrCreateRun(api, expId, p, p.iterations[0]?.time ?? Date.now());
  const runId = run.info.run_id;
  const loggedThrough = Number(run.data?.tags?.find((t) => t.key === LOGGED_TAG)?.value ?? -1);

  for (const it of p.iterations.filter((i) => i.step > loggedThrough)) {
    const metrics = [
      ...Object.entries(it.metrics).map(([key, value]) => ({ key, value, timestamp: it.time, step: it.step })),
      // The trainer's curve of this iteration, one metric per iteration so each curve keeps its own steps.
      ...(await it.lossCurve()).map((r) => ({ key: `train_loss/iter_${it.step}`, value: r.loss, timestamp: it.time, step: r.step })),
    ];
    for (let i = 0; i < metrics.length; i += MAX_METRICS)
      await api.request('POST', '/api/2.0/mlflow/runs/log-batch', { run_id: runId, metrics: metrics.slice(i, i + MAX_METRICS) });
    const tags = Object.entries(it.lineage).map(([k, value]) => ({ key: `collab-loop.iter-${it.step}.${k}`, value }));
    for (let i = 0; i < tags.length; i += MAX_TAGS)
      await api.request('POST', '/api/2.0/mlflow/runs/log-batch', { run_id: runId, tags: tags.slice(i, i + MAX_TAGS) });
    await api.request('POST', '/api/2.0/mlflow/runs/set-tag', { run_id: runId, key: LOGGED_TAG, value: String(it.step) });
  }
  if (o.uploadReport) await uploadArtifact(api, run.info, 'report.html', await report(), 'text/html');
  if (p.final) {
    const end = p.iterations.at(-1)?.time ?? Date.now();
    await api.request('POST', '/api/2.0/mlflow/runs/update', { run_id: runId, status: 'FINISHED', end_time: end });
  }
  return { runId, experimentId: expId };
}
