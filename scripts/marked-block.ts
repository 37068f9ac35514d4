// Rewrites one marked block of a text file: what lies between `<!-- NAME -->` and `<!-- /NAME -->`, each marker on a
// line of its own. A generator (the bench's figures in docs/benchmarks.md) replaces what it wrote last time and
// leaves every other line as the author wrote it.

const opening = (name: string) => `<!-- ${name} -->`;
const closing = (name: string) => `<!-- /${name} -->`;

/** `text` with the lines between the block's markers replaced by `body`; the markers stay. A missing, repeated or
 *  unclosed block is an error naming it: writing elsewhere would hide the figures from the page's reader. */
export function replaceMarkedBlock(text: string, name: string, body: string): string {
  const lines = text.split('\n');
  const at = (marker: string) => lines.flatMap((l, i) => (l.trim() === marker ? [i] : []));
  const starts = at(opening(name));
  const ends = at(closing(name));
  if (starts.length !== 1 || ends.length !== 1 || ends[0] < starts[0])
    throw new Error(
      `expected one block "${opening(name)}" … "${closing(name)}", found ${starts.length} opening and ${ends.length} closing markers${
        starts.length === 1 && ends.length === 1 ? ' in the wrong order' : ''
      }`,
    );
  const inner = body.replace(/\n+$/, '');
  return [...lines.slice(0, starts[0] + 1), ...(inner ? inner.split('\n') : []), ...lines.slice(ends[0])].join('\n');
}

/** The names of the blocks `text` has whose name starts with `prefix` (e.g. every `bench:` block). */
export function markedBlockNames(text: string, prefix: string): string[] {
  const pattern = /^<!-- ([^/\s][^\s]*) -->$/;
  return text.split('\n').flatMap((l) => {
    const name = pattern.exec(l.trim())?.[1];
    return name?.startsWith(prefix) ? [name] : [];
  });
}
