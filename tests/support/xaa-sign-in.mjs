// Plays the user at oidc-provider's development sign-in pages for a manual run:
//   node support/xaa-sign-in.mjs '<the URL mcpkit login --no-browser printed>'
import { chromium } from 'playwright-core';

const browser = await chromium.launch({
  executablePath: process.env.MCPKIT_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  await page.goto(process.argv[2]);
  await page.fill('input[name=login]', process.argv[3] ?? 'ada');
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
  await page.click('button[type=submit]');
  await page.waitForURL(/\/callback\?/);
  process.stdout.write(`${(await page.textContent('body')) ?? ''}\n`);
} finally {
  await browser.close();
}
