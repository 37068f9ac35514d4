// `\boxed{...}` contents by brace counting (a regex cannot match nested braces such as \boxed{\frac{1}{2}}).

/** Content of the \boxed{} group that starts at or after `from`, or undefined if none is complete. */
function boxedAt(s: string, from: number): { content: string; end: number } | undefined {
  const i = s.indexOf('\\boxed', from);
  if (i === -1) return undefined;
  let open = i + '\\boxed'.length;
  while (s[open] === ' ') open++;
  if (s[open] !== '{') return boxedAt(s, open);
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    if (s[j] === '{') depth++;
    else if (s[j] === '}' && --depth === 0) return { content: s.slice(open + 1, j), end: j + 1 };
  }
  return undefined;
}

/** The last boxed answer: a reply's final answer (MATH convention; with several, the seeds' graders take the last). */
export function lastBoxed(s: string): string | undefined {
  let last: string | undefined;
  for (let b = boxedAt(s, 0); b; b = boxedAt(s, b.end)) last = b.content;
  return last;
}
