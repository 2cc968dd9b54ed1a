// Plays the user at oidc-provider's development sign-in pages for a manual run:
//   node support/xaa-sign-in.mjs '<the URL mcpkit login --no-browser printed>' [user]
// Needs Chromium: Debian's at /usr/bin/chromium (`node ../scripts/ensure-chromium.mjs` as
// root installs it) or MCPKIT_CHROMIUM. Steps: tests/support/README-xaa.md.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const fail = (message) => {
  process.stderr.write(`xaa-sign-in: ${message}\n`);
  process.exit(1);
};
const [url, user = 'ada'] = process.argv.slice(2);
if (!url || !/^https?:\/\//.test(url))
  fail("usage: node support/xaa-sign-in.mjs '<the URL mcpkit login --no-browser printed>' [user]");
const executablePath = process.env.MCPKIT_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(executablePath))
  fail(
    `no Chromium at ${executablePath}: install Debian's (as root: node ../scripts/ensure-chromium.mjs, or apt-get install chromium) or set MCPKIT_CHROMIUM to a Chromium binary`,
  );

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
let step = 'opening the sign-in URL';
// Every way out goes through browser.close(): process.exit with the browser open leaves
// Chromium's own folder (org.chromium.Chromium.*) in the temp dir.
let problem;
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const response = await page.goto(url);
  if (response && !response.ok()) {
    problem = `the identity provider answered ${url} with HTTP ${response.status()}: ${((await page.textContent('body')) ?? '').replace(/\s+/g, ' ').trim().slice(0, 300)} (a URL from an earlier login, or fixtures restarted since?)`;
  } else {
    step = 'filling the login form';
    await page.fill('input[name=login]', user);
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    step = 'waiting for the consent page';
    await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
    await page.click('button[type=submit]');
    step = "waiting for the redirect to mcpkit's callback (is mcpkit login still waiting?)";
    await page.waitForURL(/\/callback\?/);
    // innerText: the page's heading and text as lines (textContent runs them together).
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is wanted
    process.stdout.write(`${(await page.innerText('body')).replace(/\s+/g, ' ').trim()}\n`);
  }
} catch (error) {
  problem = `${step}: ${(error.message ?? String(error)).split('\n')[0]}`;
} finally {
  await browser.close();
}
if (problem) fail(problem);
