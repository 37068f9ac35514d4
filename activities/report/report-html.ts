// `collab-loop report <run> --html` (and the page trackers upload): one self-contained HTML file to look at a run —
// a plot per metric across iterations, the training loss per step, LLM calls, tokens and time per stage, the
// lineage, and a browser of sampled evaluation conversations. It reads the artifact store the summaries point at;
// a section whose data is missing says so instead of failing the page.
import type { LoopConfig } from '../../contracts/config';
import { fmtNum } from '../../contracts/metrics-table';
import { chainText, roleChains } from '../../contracts/role-chains';
import type { ArtifactRef, IterationSummary, TrainOutcome } from '../../contracts/run';
import type { ArtifactStore } from '../artifacts/store';
import { storeFor } from '../artifacts/store';
import type { RecipeRuntime } from '../recipes/types';
import { conversationBrowser, sampleViews } from './conversation-browser';
import type { ConversationView } from './conversation-view';
import { esc, note, page, section } from './html';
import { spendTables, stageTimeTable, llmUsageTable } from './stage-tables';
import { legendHtml, linePlotSvg, type Series } from './svg-plot';

export type ReportOptions = {
  /** Conversations shown per iteration (the page embeds their rendered pages). Default 12. */
  samplesPerIteration?: number;
} & (
  | {
      /** The run's config: where its artifacts are stored. */
      config: LoopConfig;
      /** The config's recipe at run time, which reads the records; made only when the page has an iteration to show
       *  (it reads the recipe's prompts file). */
      recipe: () => RecipeRuntime;
    }
  /** Without the config the conversation browser and the recipe's figures are left out. */
  | { config?: undefined; recipe?: undefined }
);

/** Reads check each ref's sha256; a file: URI is read where it is, others through the run's storage. */
const readerFor = (opts: ReportOptions): ArtifactStore => storeFor(opts.config ?? { stateDir: '.' });

/** A section that cannot be built (a moved artifact, a task file gone) says why; the rest of the page stands. */
async function guarded(build: () => string | Promise<string>): Promise<string> {
  try {
    return await build();
  } catch (err) {
    return note(`Not available: ${(err as Error).message}`);
  }
}

function metricPlots(rows: IterationSummary[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  if (!keys.length) return note('No metrics yet.');
  const figures = keys.map((k) => {
    const points = rows
      .filter((r) => r.metrics[k] !== undefined && Number.isFinite(r.metrics[k]))
      .map((r) => [r.iteration, r.metrics[k]] as [number, number]);
    return `<figure class="metric-plot" data-metric="${esc(k)}">${linePlotSvg({ series: [{ name: k, points }], xLabel: 'iteration', integerX: true })}<figcaption>${esc(k)}</figcaption></figure>`;
  });
  const table = [
    `<tr><th>metric</th>${rows.map((r) => `<th>iter ${r.iteration}</th>`).join('')}</tr>`,
    ...keys.map((k) => `<tr><td>${esc(k)}</td>${rows.map((r) => `<td>${fmtNum(r.metrics[k])}</td>`).join('')}</tr>`),
    `<tr><td>tokens (all LLM calls)</td>${rows.map((r) => `<td>${r.tokens}</td>`).join('')}</tr>`,
  ].join('\n');
  return `<div class="plots">${figures.join('')}</div>\n<table class="metrics">${table}</table>`;
}

/** Every training run of an iteration: one per trained role when it trained several, else the one model's. */
function trainRuns(r: IterationSummary): Array<{ label: string; train: TrainOutcome; next?: string }> {
  const roles = Object.entries(r.models ?? {}).filter(([, m]) => m.train);
  if (roles.length > 1)
    return roles.map(([role, m]) => ({ label: `iter ${r.iteration} ${role}`, train: m.train!, next: m.nextCheckpoint }));
  return r.train ? [{ label: `iter ${r.iteration}`, train: r.train, next: r.nextCheckpoint }] : [];
}

async function lossPlot(rows: IterationSummary[], reader: ArtifactStore): Promise<string> {
  const runs = rows.flatMap((r) => trainRuns(r).map((t) => ({ ...t, iteration: r.iteration })));
  if (!runs.length) return note('No iteration trained.');
  const series: Series[] = [];
  const missing: string[] = [];
  for (const t of runs) {
    if (!t.train.lossCurve) {
      missing.push(t.label);
      continue;
    }
    const curve = await reader.readJsonl<{ step: number; loss: number }>(t.train.lossCurve);
    series.push({
      name: `${t.label} → ${t.next?.split('/').pop() ?? 'next checkpoint'}`,
      points: curve.map((p) => [p.step, p.loss]),
      attrs: { 'data-iteration': t.iteration },
    });
  }
  const plot = series.length
    ? `<figure class="loss-plot">${linePlotSvg({ series, xLabel: 'step', width: 640, height: 260 })}${legendHtml(series)}</figure>`
    : '';
  return (
    plot +
    (missing.length
      ? note(
          `Loss per step not recorded for ${missing.join(', ')} (a run recorded before it existed); final losses: ${runs.map((t) => `${t.label} ${fmtNum(t.train.finalLoss)}`).join(', ')}.`,
        )
      : '')
  );
}

/** Each model role's checkpoint chain, and per iteration the rows and trainer run that extended it. */
function roleTable(rows: IterationSummary[]): string {
  const chains = roleChains(rows);
  if (chains.length < 2) return '';
  const cell = (r: IterationSummary, role: string) => {
    const m = r.models?.[role];
    if (!m) return '<td>-</td>';
    if (m.skipped) return `<td>kept (${esc(m.skipped)})</td>`;
    if (!m.train) return `<td>served</td>`;
    return `<td>${m.dataset?.rows ?? '?'} rows · ${m.train.steps ?? '?'} steps · loss ${fmtNum(m.train.finalLoss)}${m.train.resumedFromStep ? ` (resumed from step ${m.train.resumedFromStep})` : ''}</td>`;
  };
  return `<table class="model-roles"><tr><th>role</th><th>kind</th><th>checkpoints</th>${rows.map((r) => `<th>iter ${r.iteration}</th>`).join('')}</tr>
${chains
  .map(
    (c) =>
      `<tr data-role="${esc(c.role)}"><td>${esc(c.role)}</td><td>${c.kind}</td><td><code>${esc(chainText(c))}</code></td>${rows.map((r) => cell(r, c.role)).join('')}</tr>`,
  )
  .join('\n')}</table>`;
}

function lineage(rows: IterationSummary[]): string {
  const ds = (label: string, ref?: ArtifactRef) => (ref ? ` · ${label} ${ref.rows} rows (sha256 ${ref.sha256.slice(0, 12)})` : '');
  return `${roleTable(rows)}<ul class="lineage">${rows.map((r) => `<li>iteration ${r.iteration}: served <code>${esc(r.checkpoint)}</code>${ds('SFT', r.datasets?.sft)}${ds('DPO', r.datasets?.dpo)}${r.probe ? ` · probe: served <code>${esc(r.probe.model)}</code>, ${r.probe.prompts} prompts, answers sha256 ${r.probe.answersSha256.slice(0, 12)}` : ''}${r.train ? ` · trained ${r.train.steps ?? '?'} steps, final loss ${fmtNum(r.train.finalLoss)}${r.train.resumedFromStep ? ` (resumed from step ${r.train.resumedFromStep})` : ''}` : ''}${r.nextCheckpoint ? ` → <code>${esc(r.nextCheckpoint)}</code>` : ''}</li>`).join('\n')}</ul>`;
}

/** The evaluation records of one iteration, through its evaluate manifest (which lists the scored shard refs). */
/** Read once per iteration summary: the conversations and the recipe's figures both draw on them. */
const recordsRead = new WeakMap<IterationSummary, Promise<unknown[]>>();

function evaluationRecords(r: IterationSummary, reader: ArtifactStore): Promise<unknown[]> {
  const known = recordsRead.get(r);
  if (known) return known;
  const read = (async () => {
    const manifestRef = r.manifests.evaluate;
    if (!manifestRef) throw new Error(`iteration ${r.iteration} has no evaluation`);
    const m = await reader.readJson<{ inputs: Record<string, ArtifactRef | string> }>(manifestRef);
    const shards = Object.entries(m.inputs)
      .filter(([k]) => k.startsWith('eval_shard_'))
      .map(([, v]) => v as ArtifactRef);
    return reader.readJsonlAll<unknown>(shards);
  })();
  recordsRead.set(r, read);
  return read;
}

/** The shown conversations' screenshots as data URIs (a missing one is left out: the page says so). */
async function pngDataUris(views: ConversationView[], reader: ArtifactStore): Promise<(ref: string) => string | undefined> {
  const refs = [...new Set(views.flatMap((v) => (v.images ?? []).map((im) => im.ref)))];
  const loaded = new Map<string, string>();
  await Promise.all(
    refs.map(async (ref) => {
      const png = await reader.readUri(ref).catch(() => undefined);
      if (png) loaded.set(ref, `data:image/png;base64,${png.toString('base64')}`);
    }),
  );
  return (ref) => loaded.get(ref);
}

async function conversations(rows: IterationSummary[], opts: ReportOptions, reader: ArtifactStore): Promise<{ html: string; css: string }> {
  if (!opts.recipe) return { html: note("Not available: the run's config is unknown, so no recipe can read its records."), css: '' };
  const runtime = opts.recipe();
  const n = opts.samplesPerIteration ?? 12;
  let css = '';
  const parts = [];
  for (const r of rows) {
    const body = await guarded(async () => {
      const views: ConversationView[] = (await evaluationRecords(r, reader)).map((rec) => runtime.describeRecord('eval', rec));
      const shown = sampleViews(views, n);
      const b = conversationBrowser(`i${r.iteration}`, views, shown, await pngDataUris(shown, reader));
      css += b.css;
      return `<p>${shown.length} of ${views.length} evaluation conversations (a sample across outcomes).</p>${b.html}`;
    });
    parts.push(`<h3>iteration ${r.iteration}</h3>\n${body}`);
  }
  return { html: parts.join('\n'), css };
}

/** The recipe's own figures (RecipeRuntime.reportFigures), per iteration. */
async function recipeFigures(rows: IterationSummary[], opts: ReportOptions, reader: ArtifactStore): Promise<string | undefined> {
  if (!opts.recipe) return undefined;
  const runtime = opts.recipe();
  if (!runtime.reportFigures) return undefined;
  const parts = [];
  for (const r of rows) {
    const body = await guarded(async () =>
      runtime.reportFigures!(await evaluationRecords(r, reader))
        .map(
          (f) =>
            `<figure class="recipe-figure" data-figure="${esc(f.id)}" data-iteration="${r.iteration}">${linePlotSvg({ series: f.series, xLabel: f.xLabel, width: 420, height: 240 })}${legendHtml(f.series)}<figcaption>${esc(f.title)} (y: ${esc(f.yLabel)})</figcaption></figure>`,
        )
        .join(''),
    );
    parts.push(`<h3>iteration ${r.iteration}</h3>\n${body || note('Nothing to plot in this iteration.')}`);
  }
  return parts.join('\n');
}

export async function reportHtml(runName: string, rows: IterationSummary[], opts: ReportOptions = {}): Promise<string> {
  const recipe = opts.config?.recipe.name;
  const last = rows.at(-1);
  const head = `<h1>collab-loop report: ${esc(runName)}</h1>
<p class="run">${recipe ? `recipe <b>${esc(recipe)}</b> · ` : ''}${rows.length} finished iteration(s)${last ? ` · latest checkpoint <code>${esc(last.nextCheckpoint ?? last.checkpoint)}</code>` : ''}</p>`;
  if (!rows.length) return page(`collab-loop report: ${runName}`, `${head}\n${note('No finished iterations yet.')}`);
  const reader = readerFor(opts);
  const convs = await conversations(rows, opts, reader);
  const figures = await recipeFigures(rows, opts, reader);
  const body = [
    head,
    section('metrics', 'Metrics per iteration', await guarded(() => metricPlots(rows))),
    section('loss', 'Training loss per step', await guarded(() => lossPlot(rows, reader))),
    section('llm-usage', 'LLM calls and tokens per stage', await guarded(() => llmUsageTable(rows))),
    section('spend', 'LLM spend per stage and per model role', await guarded(() => spendTables(rows))),
    section('stage-time', 'Time per stage', await guarded(() => stageTimeTable(rows))),
    ...(figures ? [section('recipe-figures', `${recipe} figures`, figures)] : []),
    section('lineage', 'Lineage', lineage(rows)),
    section('conversations', 'Conversations', convs.html),
  ].join('\n');
  return page(`collab-loop report: ${runName}`, body, convs.css);
}
