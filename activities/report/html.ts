// The report page's shell and escaping. Everything a record holds is shown as text: ColBench agents write whole
// web pages, and those must never run inside the report.
export const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const section = (id: string, title: string, body: string) => `<section id="${id}"><h2>${esc(title)}</h2>\n${body}\n</section>`;
export const note = (text: string) => `<p class="note">${esc(text)}</p>`;

/** Tables fit the page at any width: fixed layout, long cells wrap instead of widening the page. */
const CSS = `
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:1200px;padding:0 1rem;color:#222}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;table-layout:fixed;margin:.5rem 0}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;overflow-wrap:anywhere;vertical-align:top}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
code,pre{font-size:85%}pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.2rem 0}
.note{color:#666;font-style:italic}
.plots{display:flex;flex-wrap:wrap;gap:.5rem}.plots figure{margin:0;flex:0 1 300px;min-width:0}
figure svg{max-width:100%;height:auto}figcaption{font-size:.85rem;text-align:center}.legend{font-size:.8rem;margin:0}
h3{font-size:1rem}.probe-answers pre{font-size:75%}
.conv{border:1px solid #ddd;border-radius:4px;margin:.3rem 0;padding:.2rem .5rem}
.conv summary{cursor:pointer;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:3px;padding:0 .4rem;font-size:.8rem;margin-right:.4rem;color:#fff}
.badge.correct{background:#2ca02c}.badge.wrong{background:#d62728}.badge.disagreed{background:#9467bd}.badge.partial{background:#ff7f0e}.badge.scored{background:#1f77b4}.badge.unscored{background:#7f7f7f}
.turn{border-left:3px solid #ccc;margin:.3rem 0;padding-left:.5rem}.speaker{font-weight:600}.turn .note{font-size:.85rem}
.pages{display:flex;gap:.5rem;flex-wrap:wrap}.pages figure{margin:0;flex:1 1 300px;min-width:0}.pages img{max-width:100%;border:1px solid #ccc}
.filters label{margin-right:.8rem;cursor:pointer;color:#1f77b4}input.filter{position:absolute;opacity:0;pointer-events:none}
`;

export function page(title: string, body: string, extraCss = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}${extraCss}</style>
</head><body>
${body}
</body></html>
`;
}
