/** What the CLI says about itself: no dependency, so that --version and --help load nothing else. */

// Bundled into dist/bin.js at build: no file is read at run time.
import packageJson from '../../package.json' with { type: 'json' };

/** The CLI's version: its package.json's, the one place it is written. */
export const VERSION: string = packageJson.version;

export const USAGE = `mcpkit ${VERSION} — inspect and call MCP servers

Using servers:
  mcpkit [options] servers                         connect to every enabled server and show its status
  mcpkit [options] get <name>                      one server: entry (redacted), scope, decision, state, capabilities, tools
  mcpkit [options] tools                           list the tools of every server
  mcpkit [options] call <server> <tool> [json]     call a tool with JSON arguments;
                   [- | key=value...]              - reads them from stdin; key=value typed from its schema
  mcpkit [options] resources                       list resources
  mcpkit [options] read <server> <uri>             read a resource
  mcpkit [options] prompts                         list prompts
  mcpkit [options] prompt <server> <name> [json]   get a prompt with JSON arguments
  mcpkit [options] doctor [name...]                check each server: config, variables, command or URL,
                                                   sign-in, connect, ping, stderr, warnings; exit 1 on a problem
  mcpkit [options] shell                           an interactive session on every server (Tab completes; "help")

Serving (a gateway: every server behind one MCP server; see SERVE.md):
  mcpkit [options] serve [--http [host:]port]      stdio by default; --http serves Streamable HTTP on /mcp
                            --http always wants a bearer token: by default the one in
                            $XDG_STATE_HOME/mcpkit/serve-token (made 0600 on first use, shown once)
      --token-file <path>   --http: the bearer token from this file (0600: others may not read it)
      --token <t>           --http: the bearer token (visible to local users in /proc; or MCPKIT_SERVE_TOKEN)
      --no-auth             --http on loopback only: no token (any local process gets in; warns)
      --allowed-host <h>    --http: a Host name to answer besides the bind's own (repeatable)
      --allowed-origin <o>  --http: a browser Origin to allow besides the gateway's own (repeatable)
      --separator <s>       between server and tool names (default "__")
      --no-prefix           one server (--server): names unchanged
      --search              list two tools, search_tools and call_tool, instead of all (capped clients)
      --tools <patterns>    allow/deny tools: "server/tool", "tool", "*" wildcards, "!" denies (repeatable)
      --sse-poll-ms <ms>    --http, 2025-11-25: close a tool call's SSE stream after <ms>; the client resumes (SEP-1699)
      --backend-wait-ms <ms>  stdio: answer initialize once backends settled or after <ms> (default 5000)
      --gateway-config <file>  prefixes, tool filters, renames, argument transforms, endpoints (JSONC;
                            default: gateway.jsonc in mcpkit's config folder, when it exists); reloaded on change
      --endpoint <name>     serve this endpoint of the gateway config (stdio; with --http: on /mcp)
      --max-message-bytes <n>  also bounds what clients send: a longer stdio line is answered
                            with an error, a larger --http body gets 413 (default: 4 MiB for --http)

Authorization:
  mcpkit login <server> [--no-browser]             sign in to a remote server (OAuth); tokens kept 0600
                                                   (--no-browser also: URL elicitations are printed, not opened)
  mcpkit logout <server>                           forget its tokens and registration

Configuring servers:
  mcpkit list                                      every server: scope, file, status, and why
  mcpkit add [--transport t] <name> <command|url> [-- args...]
  mcpkit add-json <name> '<json>'
  mcpkit remove <name>
  mcpkit enable <name> | disable <name>            set or clear "disabled" in the entry's own file
  mcpkit approve <name...> | --all                 allow project (.mcp.json) servers to start
  mcpkit reject <name...>
  mcpkit reset-project-choices
  mcpkit import --from <host> [file] [--dry-run]   hosts: claude-desktop, claude-code, vscode, cursor, cline, windsurf, zed

Servers from the MCP Registry (registry.modelcontextprotocol.io, or "registries" in settings.json):
  mcpkit search <query> [--limit n]                name, version, status, transports, description
  mcpkit install <name>[@version] [--dry-run]      add it as a config entry (npx, uvx, docker or its URL)
      -e <KEY=VALUE>        a value it needs (repeatable); asked on a terminal, secrets hidden
      --store values|refs   secrets as values (file written 0600) or as \${VAR} references
      --use <kind>          npm, pypi, oci or remote (default: the first of these it offers)
      --as <name>           the entry's name (default: the part after the "/")
      --allow-deprecated    install a deprecated entry (a deleted one never)
      --registry <url>      ask this registry instead (repeatable, asked in order)

Options:
  -c, --config <file|json>  extra servers (dynamic scope; repeatable; later wins)
      --strict-config       use only the --config servers
  -s, --server <name>       only this server (repeatable) for the list commands
      --scope <scope>       where add/remove/import write: local (default), project, user
      --transport <t>       add: stdio (default), http, sse, ws
  -e, --env <K=V>           add: environment variable for a stdio server (repeatable)
  -H, --header <N: v>       add: header for a remote server (repeatable)
      --json                machine-readable output on stdout
      --timeout <ms>        per-request timeout (default 60000; 1 to 2147483647)
      --login-timeout <ms>  login: the whole sign-in (default 300000)
      --max-message-bytes <n>
                            the largest message a server may send (default 67108864);
                            serve: also the largest a client may send the gateway
      --sanitize            call/read/prompt: escape terminal controls even into a pipe or file
      --show-secrets        print header values, credential env values and URL secrets as they are
  -v, --verbose             show servers' stderr and warnings, each line prefixed [server]
      --elicit <json>       answer the next form a server asks (elicitation) with this object
      --root <dir>          a root the servers may work in (repeatable; default: the working directory)
      --no-roots            offer servers no roots
      --trace <file>        append every JSON-RPC message (both directions) as JSON lines, as sent
      --no-progress         no live progress lines while connecting (drawn only on a terminal)
  -h, --help                this text (mcpkit <command> --help: that command's)
      --version             the version
`;

/** A usage error: one line (node:util's parser writes several), and where to read more. */
export function usageLine(message: string, command?: string): string {
  return `mcpkit: ${message.replace(/\s*\n\s*/g, ' ')} (see "mcpkit ${command ? `${command} ` : ''}--help")\n`;
}

/**
 * `mcpkit <command> --help`: the lines of the usage that name the command with the indented
 * lines under them (its own options, like serve's), and the options.
 */
export function commandHelp(command: string): string {
  const lines = USAGE.split('\n');
  const names = new RegExp(`^  mcpkit (\\[options\\] )?${command}( |$)`);
  const own: string[] = [];
  let under = false;
  for (const line of lines) {
    if (names.test(line)) under = true;
    else if (!(under && line.startsWith('    '))) under = false;
    if (under) own.push(line);
  }
  const options = USAGE.slice(USAGE.indexOf('Options:'));
  return `${own.join('\n')}\n\n${options}`;
}
