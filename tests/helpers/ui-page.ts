// Reading the real Temporal UI in Chromium (playwright-core, the system Chromium): a UI server's browser, a run
// with the project's workers, and a workflow page's text, frames included, once what a test waits for is on it.
import { afterAll, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from '../../activities/render/browser-pool';
import { createWorkers } from '../../workers/run-worker';
import { tempStateDir } from './config';
import { workflowBundle } from './temporal';
import { startUiServer, type UiServer } from './ui-server';
import { waitUntil } from './wait';

/** Where a UI test's screenshots go: a temporary folder, or with UPDATE_SCREENSHOTS=1 docs/screenshots (docs/cli.md's). */
export function screenshotDir(): string {
  const dir = process.env.UPDATE_SCREENSHOTS
    ? path.join(PROJECT_ROOT, 'docs', 'screenshots')
    : mkdtempSync(path.join(os.tmpdir(), 'collab-loop-ui-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The UI is on localhost: every launch flag except the resolver rule that blocks all hosts. */
export const launchUiBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH,
    args: CHROMIUM_ARGS.filter((a) => !a.startsWith('--host-resolver-rules')),
  });

export const workflowUrl = (uiPort: number, id: string) =>
  `http://127.0.0.1:${uiPort}/namespaces/default/workflows/${encodeURIComponent(id)}`;

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

/** Opens a workflow's page on a tab ("Timeline", "User Metadata", …) and returns its text once `text` is on it. */
export async function openTab(page: Page, uiPort: number, id: string, tab: string, text: RegExp): Promise<string> {
  await page.goto(workflowUrl(uiPort, id));
  await page.getByRole('tab', { name: tab }).click({ timeout: 60_000 });
  return waitUntil(
    async () => {
      const t = await pageText(page);
      return text.test(t) && t;
    },
    60_000,
    `${text} on the ${tab} tab of ${id}`,
  );
}

/** A client, the project's workers (to run with runWorkers, in this process) and a browser page on a UI server;
 *  `close` closes the page and the connections. */
export async function openUiRun(server: { port: number }, browser: Browser) {
  const address = `127.0.0.1:${server.port}`;
  const connection = await Connection.connect({ address });
  const native = await NativeConnection.connect({ address });
  const workers = await createWorkers({ connection: native, workflowBundle: await workflowBundle(), shutdownGraceTime: '1s' });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const close = async () => {
    await page.close();
    await native.close();
    await connection.close();
  };
  return { client: new Client({ connection }), workers, page, close };
}

/** A UI server (tests/helpers/ui-server.ts) and a browser for a test file: started before its tests, stopped after. */
export function useUiServer(): { server: UiServer; browser: Browser } {
  const ui = {} as { server: UiServer; browser: Browser };
  beforeAll(async () => {
    ui.server = await startUiServer(tempStateDir());
    ui.browser = await launchUiBrowser();
  });
  afterAll(async () => {
    await ui.browser?.close();
    await ui.server?.stop();
  });
  return ui;
}
