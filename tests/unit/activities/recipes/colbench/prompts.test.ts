import { describe, expect, it } from 'vitest';
import {
  agentMessages,
  ANSWER_MARKER,
  CODE_AGENT_SYSTEM_PROMPT,
  CODE_HUMAN_SYSTEM_PROMPT,
  codeHumanMessages,
  CRITIC_SYSTEM_PROMPT,
  criticMessages,
  agentSystemPrompt,
  DEFAULT_COLBENCH_PROMPTS,
  extractHtml,
  HTML_AGENT_SEED_SYSTEM_PROMPT,
  HTML_AGENT_SYSTEM_PROMPT,
  HTML_HUMAN_SYSTEM_PROMPT,
  htmlHumanMessages,
  NO_DRAFT_NOTE,
  OUTPUT_MARKER,
  readAgentReply,
} from '../../../../../activities/recipes/colbench';
import { webPageAsset } from '../../../../../activities/render/page-renderer';

const { code: CODE, html: HTML, htmlSeed: HTML_SEED } = DEFAULT_COLBENCH_PROMPTS;

describe('ColBench prompts', () => {
  it('give every role its own system prompt; agents know the marker, the html agent OUTPUT:', () => {
    const all = [
      CODE_AGENT_SYSTEM_PROMPT,
      HTML_AGENT_SYSTEM_PROMPT,
      HTML_AGENT_SEED_SYSTEM_PROMPT,
      CODE_HUMAN_SYSTEM_PROMPT,
      HTML_HUMAN_SYSTEM_PROMPT,
      CRITIC_SYSTEM_PROMPT,
    ];
    expect(new Set(all).size).toBe(6);
    expect(CODE_AGENT_SYSTEM_PROMPT).toContain(ANSWER_MARKER);
    expect(CODE_AGENT_SYSTEM_PROMPT).toContain('at most 10 messages');
    expect(HTML_AGENT_SYSTEM_PROMPT).toContain(ANSWER_MARKER);
    expect(HTML_AGENT_SYSTEM_PROMPT).toContain(OUTPUT_MARKER);
    expect(HTML_AGENT_SEED_SYSTEM_PROMPT).toContain(ANSWER_MARKER);
    expect(HTML_AGENT_SEED_SYSTEM_PROMPT).toContain(OUTPUT_MARKER);
    expect(CODE_HUMAN_SYSTEM_PROMPT).toContain('exactly two sentences');
    expect(CODE_HUMAN_SYSTEM_PROMPT).toContain("don't know");
  });

  it('pick the html agent prompt by compat: the seed asks for Tailwind CSS and picture 48 only, as the seed does', () => {
    expect(agentSystemPrompt(HTML)).toBe(HTML_AGENT_SYSTEM_PROMPT);
    expect(agentSystemPrompt(HTML_SEED)).toBe(HTML_AGENT_SEED_SYSTEM_PROMPT);
    expect(agentSystemPrompt(CODE)).toBe(CODE_AGENT_SYSTEM_PROMPT);
    expect(HTML_AGENT_SEED_SYSTEM_PROMPT).toContain('Tailwind CSS');
    expect(HTML_AGENT_SEED_SYSTEM_PROMPT).toContain('https://picsum.photos/id/48/<width>/<height>');
    expect(HTML_AGENT_SEED_SYSTEM_PROMPT).toContain('at most 10 exchanges');
  });

  it('name only URLs the page renderer answers: a page following either html prompt loads everything it asks for', () => {
    for (const prompt of [HTML_AGENT_SYSTEM_PROMPT, HTML_AGENT_SEED_SYSTEM_PROMPT]) {
      const sized = prompt.replaceAll('<width>', '320').replaceAll('<height>', '240');
      const urls = sized.match(/https:\/\/[^\s"<>,]+/g) ?? [];
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(webPageAsset(url), url).toBeDefined();
    }
    expect(HTML_AGENT_SYSTEM_PROMPT).toMatch(
      /<link rel="stylesheet" href="https:\/\/cdn\.jsdelivr\.net\/npm\/tailwindcss@2\.2\.19\/dist\/tailwind\.min\.css">/,
    );
  });

  it('show the agent its system prompt, the problem as the first user message, then the dialogue', () => {
    const m = agentMessages('SYS', 'the problem', [
      { role: 'agent', content: 'q?' },
      { role: 'human', content: 'a.' },
    ]);
    expect(m).toEqual([
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'the problem' },
      { role: 'assistant', content: 'q?' },
      { role: 'user', content: 'a.' },
    ]);
  });

  it('give the code human the problem, the hidden reference and the transcript', () => {
    const [sys, user] = codeHumanMessages(CODE, 'fixed', 'P', 'def f(): return 42', [{ role: 'agent', content: 'What number?' }]);
    expect(sys).toEqual({ role: 'system', content: CODE_HUMAN_SYSTEM_PROMPT });
    expect(user.content).toContain('P');
    expect(user.content).toContain('def f(): return 42');
    expect(user.content).toContain('[agent]\nWhat number?');
  });

  it("compat: seed gives the code human the dialogue as the seed's human reads it: problem first, agent: at the end", () => {
    const dialogue = [
      { role: 'agent' as const, content: 'What number?' },
      { role: 'human' as const, content: 'Forty-two.' },
      { role: 'agent' as const, content: 'Rounded?' },
    ];
    const [, user] = codeHumanMessages(CODE, 'seed', 'P', 'def f(): return 42', dialogue);
    expect(user.content).toContain('user:P\n\n\n\nassistant:What number?\n\n\n\nuser:Forty-two.\n\n\n\nassistant:Rounded?\n\n\n\nagent:');
    expect(user.content).not.toContain('[agent]');
  });

  it('send the html human two image_url data-URL parts, or a note and one image', () => {
    const png = Buffer.from('png-bytes');
    const both = htmlHumanMessages(HTML, 'fixed', Buffer.from('agent'), png)[1].content as Array<{
      type: string;
      image_url?: { url: string };
      text?: string;
    }>;
    const images = both.filter((p) => p.type === 'image_url');
    expect(images.map((p) => p.image_url!.url)).toEqual([
      `data:image/png;base64,${Buffer.from('agent').toString('base64')}`,
      `data:image/png;base64,${png.toString('base64')}`,
    ]);
    const none = htmlHumanMessages(HTML, 'fixed', undefined, png)[1].content as Array<{ type: string; text?: string }>;
    expect(none.filter((p) => p.type === 'image_url')).toHaveLength(1);
    expect(none.some((p) => p.text === NO_DRAFT_NOTE)).toBe(true);
  });

  it('compat: seed sends the html human one user message, its instructions first, no closing question', () => {
    const png = Buffer.from('png-bytes');
    const parts = (m: ReturnType<typeof htmlHumanMessages>) =>
      m.map((x) => ({ role: x.role, parts: (x.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? p.type) }));
    expect(parts(htmlHumanMessages(HTML_SEED, 'seed', Buffer.from('agent'), png))).toEqual([
      { role: 'user', parts: [HTML_HUMAN_SYSTEM_PROMPT, "The designer's current draft:", 'image_url', 'The page you want:', 'image_url'] },
    ]);
    expect(parts(htmlHumanMessages(HTML_SEED, 'seed', undefined, png))).toEqual([
      { role: 'user', parts: [HTML_HUMAN_SYSTEM_PROMPT, NO_DRAFT_NOTE, 'The page you want:', 'image_url'] },
    ]);
  });

  it('number the critic candidates and include the reference', () => {
    const [, user] = criticMessages(CODE, 'P', 'REF', [], ['a', 'b', 'c']);
    expect(user.content).toMatch(/### Candidate 1\na\n\n### Candidate 2\nb\n\n### Candidate 3\nc/);
    expect(user.content).toContain('REF');
    expect(user.content).toContain('(nothing yet)');
  });
});

describe('reading agent replies', () => {
  it('keep the text after the first OUTPUT: as the visible message, and the raw text up to a second one', () => {
    const r = readAgentReply('thinking...\nOUTPUT: Here you go <html>a</html>\nOUTPUT: more');
    expect(r.visible).toBe('Here you go <html>a</html>');
    expect(r.raw).toBe('thinking...\nOUTPUT: Here you go <html>a</html>\n');
    expect(readAgentReply('plain question?')).toEqual({
      visible: 'plain question?',
      raw: 'plain question?',
      marker: false,
      afterMarker: null,
    });
  });

  it('find the marker in the visible message and take the text after it', () => {
    expect(readAgentReply(`Sure.\n${ANSWER_MARKER}\ndef f():\n    return 1\n`)).toMatchObject({
      marker: true,
      afterMarker: 'def f():\n    return 1',
    });
    // A marker among the private thoughts does not count: only the visible message is the agent's message.
    expect(readAgentReply(`${ANSWER_MARKER} soon\nOUTPUT: a question?`).marker).toBe(false);
  });

  it('extract the first <html> page, else a <body>, else nothing; strip one code fence', () => {
    expect(extractHtml('x <HTML lang="en"><p>1</p></HTML> y <html>2</html>')).toBe('<HTML lang="en"><p>1</p></HTML>');
    expect(extractHtml('draft: <body class="a"><p>b</p></body>')).toBe('<body class="a"><p>b</p></body>');
    expect(extractHtml('no page, just <div>text</div>')).toBeNull();
    // The doctype right before the page stays with it (without it the browser renders in quirks mode).
    expect(extractHtml('Draft:\n<!DOCTYPE html>\n<html><body>x</body></html>\nthanks')).toBe(
      '<!DOCTYPE html>\n<html><body>x</body></html>',
    );
  });
});
