/**
 * Debian's chromium for the audit pages' browser tests, with every background network feature off (no
 * test may reach anything but loopback), and the directory screenshots go to.
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
export const ARTIFACTS = 'test/artifacts';

/** A fresh page in a fresh browser for `work`, closed afterwards; screenshots go under ARTIFACTS. */
export const withPage = async <T>(viewport: { width: number; height: number }, work: (page: Page) => Promise<T>): Promise<T> => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    mkdirSync(ARTIFACTS, { recursive: true });
    return await work(await browser.newPage({ viewport }));
  } finally {
    await browser.close();
  }
};
