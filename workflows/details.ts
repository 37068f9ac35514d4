// Markdown shown as "current details" in the Temporal UI: a run must be understandable from the UI alone.
import type { IterationStatus } from './types';

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(4));

export function renderIterationDetails(runName: string, s: IterationStatus): string {
  const lines = [
    `**${runName}** · iteration ${s.iteration} · stage **${s.stage}**${s.paused ? ' · ⏸ paused' : ''}`,
  ];
  if (s.attention)
    lines.push(
      '',
      `⚠️ **needs attention** in \`${s.attention.stage}\` since ${s.attention.since}`,
      `> ${s.attention.error.split('\n').slice(0, 6).join('\n> ')}`,
      '',
      `Fix the cause, then: \`collab-loop retry ${runName}\` (optionally \`--stage S --set key=value\`).`,
    );
  if (s.shards.total) lines.push('', `shards ${s.shards.done}/${s.shards.total} · conversations ${s.conversations.done} · tokens ${s.tokens}`);
  if (s.train?.step !== undefined) lines.push(`train step ${s.train.step}${s.train.loss !== undefined ? ` · loss ${fmt(s.train.loss)}` : ''}`);
  if (s.metrics) lines.push('', ...Object.entries(s.metrics).map(([k, v]) => `- ${k}: ${fmt(v)}`));
  return lines.join('\n');
}
