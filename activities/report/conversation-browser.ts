// The report's conversation browser: per iteration, a sample of evaluation conversations with filters by outcome
// (pure CSS radio buttons: the page runs no script). Rendered pages are embedded as data: URIs so the file stands
// alone; the sample is bounded so the file stays small.
import { GRADED, OUTCOMES, type ConversationView, type Outcome } from './conversation-view';
import { esc } from './html';

/** Up to `n` views, taking outcomes in turn so every filter has examples; deterministic (record order). */
export function sampleViews(views: ConversationView[], n: number): ConversationView[] {
  const groups = OUTCOMES.map((o) => views.filter((v) => v.outcome === o));
  const out: ConversationView[] = [];
  for (let i = 0; out.length < n && groups.some((g) => i < g.length); i++)
    for (const g of groups) if (i < g.length && out.length < n) out.push(g[i]);
  return out;
}

function conversationHtml(v: ConversationView, image: (ref: string) => string | undefined): string {
  const turns = v.turns
    .map(
      (t) =>
        `<div class="turn"><div class="speaker">${esc(t.speaker)}</div><pre>${esc(t.text)}</pre>${t.note ? `<div class="note">${esc(t.note)}</div>` : ''}</div>`,
    )
    .join('');
  const pages = v.images?.length
    ? `<div class="pages">${v.images
        .map((im) => {
          const src = image(im.ref);
          return `<figure>${src ? `<img alt="${esc(im.label)}" src="${src}">` : `<p class="note">${esc(im.label)}: image not found in the artifact store</p>`}<figcaption>${esc(im.label)}</figcaption></figure>`;
        })
        .join('')}</div>`
    : '';
  const failures = v.failures?.length
    ? `<table class="failures"><tr><th>failing test</th><th>call</th><th>error</th></tr>${v.failures.map((f) => `<tr><td>${esc(f.name)}</td><td><code>${esc(f.call)}</code></td><td>${esc(f.error ?? '')}</td></tr>`).join('')}</table>`
    : '';
  return `<details class="conv ${v.outcome}" data-outcome="${v.outcome}"><summary><span class="badge ${v.outcome}">${v.outcome}</span><b>${esc(v.id)}</b> · ${esc(v.summary)}</summary>
${v.task ? `<div class="turn"><div class="speaker">task</div><pre>${esc(v.task)}</pre></div>` : ''}${turns}${pages}${failures}</details>`;
}

/**
 * One iteration's browser. `key` makes the radio group and its CSS unique on the page. The radio inputs are
 * siblings of the list (labels elsewhere point at them), so a checked filter can hide the other outcomes with CSS.
 */
export function conversationBrowser(
  key: string,
  all: ConversationView[],
  shown: ConversationView[],
  image: (ref: string) => string | undefined,
): { html: string; css: string } {
  const count = (o: Outcome) => all.filter((v) => v.outcome === o).length;
  // The buckets that have records; and correct and wrong whenever records are graded (an empty one says so).
  const graded = GRADED.some((o) => count(o) > 0);
  const present = OUTCOMES.filter((o) => count(o) > 0 || (graded && (o === 'correct' || o === 'wrong')));
  const ids = ['all', ...present];
  const inputs = ids
    .map((id) => `<input type="radio" class="filter" name="f-${key}" id="f-${key}-${id}"${id === 'all' ? ' checked' : ''}>`)
    .join('');
  const labels = ids
    .map((id) => `<label for="f-${key}-${id}">${esc(id === 'all' ? `all (${all.length})` : `${id} (${count(id as Outcome)})`)}</label>`)
    .join('');
  const css = [
    ...present.map((o) => `#f-${key}-${o}:checked~.convs .conv:not(.${o}){display:none}`),
    ...ids.map((id) => `#f-${key}-${id}:checked~.filters label[for="f-${key}-${id}"]{font-weight:700;text-decoration:underline}`),
  ].join('');
  const body = shown.map((v) => conversationHtml(v, image)).join('\n');
  return {
    html: `<div class="browser" id="browser-${key}">${inputs}<div class="filters">filter: ${labels}</div><div class="convs">${body}</div></div>`,
    css,
  };
}
