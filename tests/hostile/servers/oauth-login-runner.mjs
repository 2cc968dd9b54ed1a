/**
 * Runs `OAuthProvider.login()` in a process of its own against the MCP server URL in
 * argv[2] and prints the outcome as one JSON line. It never calls `process.exit`: a test
 * checks that it exits by itself, i.e. that a failed login leaves no listener, timer or
 * socket behind that keeps Node running. Imports the built package (run `pnpm build`).
 *
 * argv: <server url> <requestTimeoutMs> <loginTimeoutMs>
 */
import { LoopbackAuthorization, OAuthProvider } from '@mcpkit/auth';

const [url, requestTimeoutMs, loginTimeoutMs] = process.argv.slice(2);
let redirectUri;
class Recording extends LoopbackAuthorization {
  async redirectUri() {
    redirectUri = await super.redirectUri();
    return redirectUri;
  }
}
const provider = new OAuthProvider({
  serverUrl: url,
  serverName: 'hostile',
  requestTimeoutMs: Number(requestTimeoutMs),
  interactive: new Recording({ open: () => {}, print: () => {} }),
});
try {
  await provider.login({ timeoutMs: Number(loginTimeoutMs) });
  process.stdout.write(`${JSON.stringify({ ok: true, redirectUri })}\n`);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ name: error?.name, code: error?.code, message: error?.message, redirectUri })}\n`,
  );
}
