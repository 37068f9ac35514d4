// A Temporal dev server with its web UI and a Chromium to read it with, for the tests of what users see in the UI.
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from '../../activities/render/browser-pool';
import { tempStateDir } from './config';
import { startUiServer, type UiServer } from './ui-server';

export interface UiBrowser {
  server: UiServer;
  browser: Browser;
  /** A workflow's page in the UI. */
  workflowUrl(id: string): string;
}

/** Starts both before the file's tests and stops them after; read the fields inside the tests. */
export function useUiBrowser(): UiBrowser {
  const ui = {} as UiBrowser;
  beforeAll(async () => {
    ui.server = await startUiServer(tempStateDir());
    // The UI is on localhost: keep every launch flag except the resolver rule that blocks all hosts.
    ui.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH,
      args: CHROMIUM_ARGS.filter((a) => !a.startsWith('--host-resolver-rules')),
    });
    ui.workflowUrl = (id) => `http://127.0.0.1:${ui.server.uiPort}/namespaces/default/workflows/${encodeURIComponent(id)}`;
  });
  afterAll(async () => {
    await ui.browser?.close();
    await ui.server?.stop();
  });
  return ui;
}

/** The page's text including its frames: the UI renders summaries and details as markdown inside iframes. */
export async function pageText(page: Page): Promise<string> {
  const parts = await Promise.all(
    page.frames().map((f) =>
      f
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return parts.join('\n');
}
