// The config's `paper:` figures beside the run's values of the same metrics: the last finished iteration's and the
// best one's, in the paper's unit. `collab-loop report` prints the text; the HTML report shows the table.
import { fmtNum } from '../../contracts/metrics-table';
import type { IterationSummary } from '../../contracts/run';
import { esc, note } from './html';
import type { PaperFigures } from './paper-config';

type Figure = PaperFigures['figures'][number];
type RunValue = { iteration: number; value: number };

export interface FigureComparison {
  figure: Figure;
  /** "paper reports: <citation>; <setting>" — where the number comes from, as text. */
  provenance: string;
  paper: string;
  /** The last finished iteration that computed the metric, and the best of them; absent when none did. */
  last?: RunValue;
  best?: RunValue;
}

/** A value in the paper's unit: a percentage of a 0–1 metric when the paper prints one. */
const inPaperUnit = (f: Figure, v: number) => (f.percent ? `${(v * 100).toFixed(2)} %` : fmtNum(v));

export function compareFigures(paper: PaperFigures, rows: readonly IterationSummary[]): FigureComparison[] {
  return paper.figures.map((figure) => {
    const values = rows
      .filter((r) => Number.isFinite(r.metrics[figure.metric]))
      .map((r) => ({ iteration: r.iteration, value: r.metrics[figure.metric] }));
    const better = (a: RunValue, b: RunValue) => (figure.better === 'higher' ? b.value > a.value : b.value < a.value);
    return {
      figure,
      provenance: `paper reports: ${paper.citation}; ${figure.setting}`,
      paper: `${figure.value}${figure.percent ? ' %' : ''}`,
      ...(values.length ? { last: values.at(-1), best: values.reduce((a, b) => (better(a, b) ? b : a)) } : {}),
    };
  });
}

const bestWord = (f: Figure) => (f.better === 'higher' ? 'highest' : 'lowest');
const runValue = (f: Figure, v: RunValue) => `${inPaperUnit(f, v.value)} (iter ${v.iteration})`;
const NOT_YET = 'not computed yet';

/** For the CLI: per figure, the paper's value and the run's, then where the paper's number comes from. */
export function paperFiguresText(paper: PaperFigures, rows: readonly IterationSummary[]): string {
  const lines = compareFigures(paper, rows).flatMap((c) => [
    `  ${c.figure.metric}: paper ${c.paper} · this run: ${
      c.last && c.best ? `last ${runValue(c.figure, c.last)}, ${bestWord(c.figure)} ${runValue(c.figure, c.best)}` : NOT_YET
    }`,
    `    ${c.provenance}`,
  ]);
  return ['paper figures:', ...lines].join('\n');
}

/** For the HTML report: one row per figure. */
export function paperFiguresHtml(paper: PaperFigures, rows: readonly IterationSummary[]): string {
  const cell = (cls: string, f: Figure, v?: RunValue) =>
    `<td class="${cls}">${v ? esc(runValue(f, v)) : `<span class="note">${NOT_YET}</span>`}</td>`;
  const body = compareFigures(paper, rows).map(
    (c, i) =>
      `<tr data-figure="${i}" data-metric="${esc(c.figure.metric)}"><td>${esc(c.figure.metric)}</td><td class="paper">${esc(c.paper)}</td>${cell('run-last', c.figure, c.last)}${cell('run-best', c.figure, c.best)}<td class="provenance">${esc(c.provenance)}</td></tr>`,
  );
  return `<table class="paper-figures"><tr><th>metric</th><th>paper</th><th>this run, last</th><th>this run, best</th><th>source</th></tr>
${body.join('\n')}</table>${note("The run's values are in the paper's unit; best is the highest (lowest where the figure says `better: lower`).")}`;
}
