// Starts the XAA fixtures (tests/support/xaa.mjs) for a manual run from a shell, prints
// what to configure, and stops them on SIGINT or SIGTERM:
//   cd tests && node support/xaa-fixtures-run.mjs
// Needs the built packages (`pnpm build`).
import { startXaaStack } from './xaa.mjs';

const stack = await startXaaStack();
const settings = { identityProvider: { issuer: stack.idp.issuer, clientId: stack.idp.clientId } };
const config = {
  mcpServers: {
    corp: { type: 'http', url: stack.mcp.url, oauth: { clientId: stack.as.clientId, xaa: true } },
  },
};
process.stdout.write(`settings.json: ${JSON.stringify(settings)}\n`);
process.stdout.write(`mcp.json:      ${JSON.stringify(config)}\n`);
process.stdout.write(`authorization server: ${stack.as.issuer}\n`);
// The same two files as lines to paste into a shell with the fresh HOME (they overwrite
// that HOME's settings.json, so not in your own).
// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, printed for a shell
const dir = '"${XDG_CONFIG_HOME:-$HOME/.config}/mcpkit"';
process.stdout.write(
  `\nIn a shell with the same fresh HOME, in an empty folder, paste:\n  mkdir -p ${dir} && echo '${JSON.stringify(settings)}' > ${dir}/settings.json\n  echo '${JSON.stringify(config)}' > mcp.json\n\nType refuse, audience, expired, jwks or ok (then Enter) to change what the IdP does.\n`,
);
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await stack.close();
    process.stdout.write('stopped\n');
    process.exit(0);
  });
// Lets the person at the shell play the IdP's policy: `refuse`, `audience`, `expired`,
// `jwks` (its keys no longer match its ID tokens: the next login is refused), `ok`.
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line) => {
  const word = line.trim();
  stack.idp.policy.refuse = word === 'refuse' ? 'not allowed by policy' : undefined;
  stack.idp.policy.audience = word === 'audience' ? 'https://elsewhere.example' : undefined;
  stack.idp.policy.ttlSeconds = word === 'expired' ? -60 : 300;
  stack.idp.policy.foreignJwks = word === 'jwks';
  if (word !== 'ok') stack.as.tokens.clear();
  process.stdout.write(`policy: ${word}\n`);
});
