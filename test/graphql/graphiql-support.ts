/** Driving GraphiQL's editors from a test (graphiql.test.ts and the README screenshot). */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The visible editor of the Variables pane: put the caret between the quotes of line 2 (`"reference": "…"`). */
export async function replaceLine2Value(page: Page, value: string, { select = 0 } = {}) {
  await page.locator('.graphiql-editor-tool .monaco-editor:visible').first().click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  for (let i = 0; i < select; i++) await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.insertText(value);
}

/**
 * Opens an example tab. GraphiQL may leave the first switch after load half done (the tab marked,
 * the editors still showing the previous one): click until the query editor shows the tab's query.
 */
export async function openTab(page: Page, name: string) {
  await expect
    .poll(async () => {
      await page.locator('.graphiql-tab-button', { hasText: name }).click();
      return textOf(page, '.graphiql-query-editor');
    }, { timeout: 10_000, interval: 500 })
    .toContain(`subscription ${name}`);
}

/** Monaco lays text out with non-breaking spaces. */
export const textOf = async (page: Page, selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ');
