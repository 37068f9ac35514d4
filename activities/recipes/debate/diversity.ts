// The multiagent-ft paper's diversity of the agents' reasoning (Subramaniam et al., ICLR 2025, arXiv 2501.05707,
// "embedding dissimilarity"): embed each agent's reply to a problem, and take one minus the cosine similarity of
// two agents' embeddings, averaged over every pair of agents — higher is more diverse. The seed repository has no
// code for it; the paper embeds with T5-3B, here any OpenAI-compatible `/v1/embeddings`
// endpoint (`recipe.diversity.embeddings`). Computed per round, beside the debate, so the metric stays a pure
// function of the records. The paper's likelihood / KL measures need a scoring model's token probabilities of
// the other agents' replies and are not computed.
import type { DebateRecord } from './debate';

export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`embeddings of different sizes: ${a.length} and ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Mean of 1 − cos over every pair of the vectors; undefined for fewer than two. */
export function meanPairwiseDissimilarity(vectors: ReadonlyArray<readonly number[]>): number | undefined {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < vectors.length; i++)
    for (let j = i + 1; j < vectors.length; j++) {
      sum += 1 - cosine(vectors[i], vectors[j]);
      pairs++;
    }
  return pairs ? sum / pairs : undefined;
}

/** Texts → their embeddings, in order (activities/llm/embeddings.ts against an endpoint). */
export type Embed = (texts: string[]) => Promise<number[][]>;

const replyText = (c: unknown) => (typeof c === 'string' ? c : '');

/** The record with each round's embedding dissimilarity of the agents' replies (one embeddings request per
 *  debate); a lone agent has none. */
export async function withEmbeddingDissimilarity(r: DebateRecord, embed: Embed): Promise<DebateRecord> {
  const n = r.agents.length;
  const rounds = r.roundVotes.length;
  if (n < 2) return r;
  const texts = Array.from({ length: rounds }, (_, k) => r.agents.map((a) => replyText(a.messages[2 * k + 1]?.content))).flat();
  const vectors = await embed(texts);
  if (vectors.length !== texts.length) throw new Error(`embeddings: asked for ${texts.length}, got ${vectors.length}`);
  const embeddingDissimilarity = Array.from(
    { length: rounds },
    (_, k) => meanPairwiseDissimilarity(vectors.slice(k * n, (k + 1) * n)) ?? 0,
  );
  return { ...r, embeddingDissimilarity };
}
