import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (installed by scripts/ensure-chromium.mjs), or MCPKIT_CHROMIUM. */
export const chromiumPath = process.env.MCPKIT_CHROMIUM ?? '/usr/bin/chromium';

export function haveChromium(): boolean {
  return existsSync(chromiumPath);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Plays the user at oidc-provider's development pages: any login, then consent. */
export async function signInAndConsent(browser: Browser, url: string): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.fill('input[name=login]', 'ada');
    await page.fill('input[name=password]', 'correct horse');
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
    await page.click('button[type=submit]');
    await page.waitForURL(/\/callback\?/);
    return (await page.textContent('body')) ?? '';
  } finally {
    await page.close();
  }
}
