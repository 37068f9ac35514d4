// `collab-loop report <run> --html` (and the page trackers upload): one self-contained HTML file to look at a run —
// a plot per metric across iterations, the training loss per step, LLM calls, tokens and time per stage, the
// lineage, and a browser of sampled evaluation conversations. It reads the artifact store the summaries point at;
// a section whose data is missing says so instead of failing the page.
import type { LoopConfig } from '../../contracts/config';
import { fmtNum } from '../../contracts/metrics-table';
import { chainText, roleChains } from '../../contracts/role-chains';
import type { ArtifactRef, IterationSummary, ProbeResult, TrainOutcome } from '../../contracts/run';
import type { ArtifactStore } from '../artifacts/store';
import { storeFor } from '../artifacts/store';
import type { RecipeRuntime } from '../recipes/types';
import { conversationBrowser, sampleViews } from './conversation-browser';
import type { ConversationView } from './conversation-view';
import { esc, note, page, section } from './html';
import { metricPlots, type MetricPlot, type MetricSpec } from './metric-kinds';
import { paperFiguresHtml } from './paper-figures';
import { probeAnswers, trimmedText } from './probe-text';
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
      recipe: () => Promise<RecipeRuntime>;
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

/** A plot per metric (or per group of per-agent / per-round metrics) across iterations: rates first, counts apart. */
function metricPlotsHtml(rows: IterationSummary[], specs: readonly MetricSpec[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  if (!keys.length) return note('No metrics yet.');
  const value = (r: IterationSummary, k: string) => (Number.isFinite(r.metrics[k]) ? r.metrics[k] : undefined);
  const figure = (p: MetricPlot) => {
    const series: Series[] = p.lines.map((l) => {
      const shown = rows.filter((r) => value(r, l.key) !== undefined);
      return {
        name: l.name,
        points: shown.map((r) => [r.iteration, r.metrics[l.key]] as [number, number]),
        attrs: { 'data-metric': l.key },
        ...(l.seKey ? { errors: shown.map((r) => value(r, l.seKey!)) } : {}),
      };
    });
    const one = p.lines.length === 1 ? ` data-metric="${esc(p.lines[0].key)}"` : '';
    const caption = `${p.title}${p.lines[0].seKey ? ` (bars: ± ${p.lines[0].seKey})` : ''}`;
    return `<figure class="metric-plot ${p.kind}"${one} data-plot="${esc(p.title)}">${linePlotSvg({ series, xLabel: 'iteration', integerX: true, yKind: p.kind })}${p.lines.length > 1 ? legendHtml(series) : ''}<figcaption>${esc(caption)}</figcaption></figure>`;
  };
  const plots = metricPlots(keys, specs);
  const counts = plots.filter((p) => p.kind === 'count');
  const others = plots.filter((p) => p.kind !== 'count');
  const table = [
    `<tr><th>metric</th>${rows.map((r) => `<th>iter ${r.iteration}</th>`).join('')}</tr>`,
    ...keys.map((k) => `<tr><td>${esc(k)}</td>${rows.map((r) => `<td>${fmtNum(r.metrics[k])}</td>`).join('')}</tr>`),
    `<tr><td>tokens (all LLM calls)</td>${rows.map((r) => `<td>${r.tokens}</td>`).join('')}</tr>`,
  ].join('\n');
  return [
    others.length ? `<div class="plots rates-values">${others.map(figure).join('')}</div>` : '',
    counts.length ? `<h3>Counts</h3>\n<div class="plots counts">${counts.map(figure).join('')}</div>` : '',
    `<table class="metrics">${table}</table>`,
  ].join('\n');
}

/** The recipe's metric declarations; none (every metric its own range) when the run's recipe is unknown. */
async function metricSpecs(opts: ReportOptions): Promise<readonly MetricSpec[]> {
  try {
    return (await opts.recipe?.())?.metricKinds ?? [];
  } catch {
    return [];
  }
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

/** Longest probe answer shown; the rest is cut with an ellipsis (the full text is in the probe's artifact). */
const PROBE_TEXT_CHARS = 300;

/** What the served weights answered to the deploy stage's probe prompts, beside the hash that tells whether two
 *  iterations' weights answered alike. */
async function probeHtml(probe: ProbeResult, reader: ArtifactStore): Promise<string> {
  const head = ` · probe: served <code>${esc(probe.model)}</code>, ${probe.prompts} prompts, answers sha256 ${probe.answersSha256.slice(0, 12)}`;
  const answers = await probeAnswers(probe, reader)
    .then(
      (recs) =>
        `<ol class="probe-answers" start="0">${recs
          .map(
            (a) =>
              `<li data-prompt="${a.prompt}"><pre>${esc(trimmedText(a.text, PROBE_TEXT_CHARS))}</pre>${a.finishReason && a.finishReason !== 'stop' ? note(`finish: ${a.finishReason}`) : ''}</li>`,
          )
          .join('')}</ol>`,
    )
    .catch((err: Error) => note(`probe answers not available: ${err.message}`));
  return head + answers;
}

async function lineage(rows: IterationSummary[], reader: ArtifactStore): Promise<string> {
  const ds = (label: string, ref?: ArtifactRef) => (ref ? ` · ${label} ${ref.rows} rows (sha256 ${ref.sha256.slice(0, 12)})` : '');
  const items = await Promise.all(
    rows.map(
      async (r) =>
        `<li>iteration ${r.iteration}: served <code>${esc(r.checkpoint)}</code>${ds('SFT', r.datasets?.sft)}${ds('DPO', r.datasets?.dpo)}${r.train ? ` · trained ${r.train.steps ?? '?'} steps, final loss ${fmtNum(r.train.finalLoss)}${r.train.resumedFromStep ? ` (resumed from step ${r.train.resumedFromStep})` : ''}` : ''}${r.nextCheckpoint ? ` → <code>${esc(r.nextCheckpoint)}</code>` : ''}${r.probe ? await probeHtml(r.probe, reader) : ''}</li>`,
    ),
  );
  return `${roleTable(rows)}<ul class="lineage">${items.join('\n')}</ul>`;
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
  const runtime = await opts.recipe();
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
  const runtime = await opts.recipe();
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
  const paper = opts.config?.paper ? [section('paper', 'Paper figures', paperFiguresHtml(opts.config.paper, rows))] : [];
  if (!rows.length) return page(`collab-loop report: ${runName}`, [head, note('No finished iterations yet.'), ...paper].join('\n'));
  const reader = readerFor(opts);
  const convs = await conversations(rows, opts, reader);
  const figures = await recipeFigures(rows, opts, reader);
  const body = [
    head,
    section('metrics', 'Metrics per iteration', await guarded(async () => metricPlotsHtml(rows, await metricSpecs(opts)))),
    ...paper,
    section('loss', 'Training loss per step', await guarded(() => lossPlot(rows, reader))),
    section('llm-usage', 'LLM calls and tokens per stage', await guarded(() => llmUsageTable(rows))),
    section('spend', 'LLM spend per stage and per model role', await guarded(() => spendTables(rows))),
    section('stage-time', 'Time per stage', await guarded(() => stageTimeTable(rows))),
    ...(figures ? [section('recipe-figures', `${recipe} figures`, figures)] : []),
    section('lineage', 'Lineage', await lineage(rows, reader)),
    section('conversations', 'Conversations', convs.html),
  ].join('\n');
  return page(`collab-loop report: ${runName}`, body, convs.css);
}
