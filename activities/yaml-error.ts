// Where a YAML syntax error is. The `yaml` parser reports the position where it noticed the problem (linePos,
// 1-based): for a bracket or quote left open that is the next line that could not belong to it, or the end of the
// file — one or more lines below the mistake. The opener that was never closed is the line to fix.
import { CST, Parser, type YAMLParseError } from 'yaml';

const QUOTE_END = { 'double-quoted-scalar': '"', 'single-quoted-scalar': "'" } as const;

/** The offset of the first flow collection or quoted scalar in `text` that is never closed. */
function unclosedOpener(text: string): number | undefined {
  let found: number | undefined;
  const check = (t: CST.Token | undefined) => {
    if (!t || found !== undefined) return;
    if (t.type === 'flow-collection' && !t.end.some((e) => e.type === 'flow-map-end' || e.type === 'flow-seq-end')) found = t.offset;
    if (t.type === 'double-quoted-scalar' || t.type === 'single-quoted-scalar') {
      const q = QUOTE_END[t.type];
      if (t.source.length < 2 || !t.source.endsWith(q)) found = t.offset;
    }
  };
  for (const doc of new Parser().parse(text)) {
    if (doc.type !== 'document') continue;
    check(doc.value);
    CST.visit(doc, (item) => {
      check(item.key ?? undefined);
      check(item.value);
    });
  }
  return found;
}

/** The 1-based line to fix and the parser's message without its own (possibly later) position. */
export function yamlErrorAt(text: string, err: YAMLParseError): { line?: number; message: string } {
  const message = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  const opener = unclosedOpener(text);
  if (opener !== undefined && opener <= err.pos[0]) return { line: text.slice(0, opener).split('\n').length, message };
  return { line: err.linePos?.[0].line, message };
}
