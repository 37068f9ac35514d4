// How faithful each recipe is to its seed: declared once, in the recipe's own `fidelity.ts`, and rendered into
// docs/fidelity.md (scripts/write-fidelity-doc.ts; tests/unit/scripts/write-fidelity-doc.test.ts keeps the page current and checks
// that every file a row names exists).

/** One place where `compat: fixed` and `compat: seed` differ. `where`: a file of the recipe's folder, or a path from
 *  the repository root. */
export interface CompatDifference {
  behaviour: string;
  fixed: string;
  seed: string;
  where: string;
}

export interface RecipeFidelity {
  /** The page's heading for the recipe (recipes sharing one declaration, like ColBench's two, share a section). */
  title: string;
  /** The recipe's folder under activities/recipes/. */
  folder: string;
  /** The seed repository (and the files the comparison is with). */
  seed: string;
  /** The paper, as a reader can open it (arXiv id or venue). */
  paper: string;
  /** fixed vs seed; empty for a recipe without a `compat` switch. */
  compat: CompatDifference[];
  /** Differences from the seed kept in every mode: the seed's behaviour is a defect, or ours is a decision. */
  kept: string[];
  /** The published numbers the recipe (in `compat: seed`, where it has the switch) is meant to reproduce, and how. */
  reproduces: string[];
}

/** Markdown text: `<` outside code spans would open an HTML tag ("Error: <reply>"). */
const text = (s: string) =>
  s
    .split('`')
    .map((part, i) => (i % 2 ? part : part.replace(/</g, '&lt;')))
    .join('`');
const cell = (s: string) => text(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function section(f: RecipeFidelity): string {
  const lines = [`## ${f.title}`, '', `Seed: ${f.seed}. Paper: ${f.paper}. Code: \`activities/recipes/${f.folder}/\`.`, ''];
  if (f.compat.length) {
    lines.push(
      "`compat: fixed` (the default) corrects flaws of the seed's released code; `compat: seed` reproduces them:",
      '',
      '| behaviour | `fixed` | `seed` | where |',
      '|---|---|---|---|',
      ...f.compat.map((d) => `| ${cell(d.behaviour)} | ${cell(d.fixed)} | ${cell(d.seed)} | \`${cell(d.where)}\` |`),
      '',
    );
  } else lines.push('No `compat` switch: the recipe follows the seed, except as listed below.', '');
  if (f.kept.length)
    lines.push(f.compat.length ? 'Kept in both modes:' : 'Differences from the seed:', '', ...f.kept.map((k) => `- ${text(k)}`), '');
  lines.push('What it is meant to reproduce:', '', ...f.reproduces.map((r) => `- ${text(r)}`), '');
  return lines.join('\n');
}

/** docs/fidelity.md: one section per declaration, in registry order. */
export function renderFidelityDoc(all: readonly RecipeFidelity[]): string {
  const unique = [...new Set(all)];
  return [
    '# Fidelity to the seeds',
    '',
    "<!-- Generated from each recipe's fidelity.ts by `npx tsx scripts/write-fidelity-doc.ts`; edit those, not this page. -->",
    '',
    'Researchers compare runs of this project with published numbers. For every recipe this page lists where the',
    "default behaviour (`compat: fixed`) and the seed's released code (`compat: seed`) differ, what each does, the",
    'differences kept in both modes, and which numbers of the paper the seed mode is meant to reproduce. Grading',
    'shared by several recipes (MATH answers) is listed with each recipe that uses it.',
    '',
    ...unique.map(section),
  ]
    .join('\n')
    .replace(/\n+$/, '\n');
}
