/**
 * The page `mcpkit apps` serves and its script. What a server sends (tool names,
 * descriptions, results, view messages) is shown with `textContent` only, never as HTML;
 * the view itself runs in a sandboxed iframe: of an opaque origin, or of the origin the host
 * gave its declared domain. `prefersBorder: false` drops the frame's border and background;
 * `true` or nothing keeps them (the extension lets the host decide when it is not declared).
 */
export const HOST_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcpkit apps</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 1rem; color: #111; }
#layout { display: grid; grid-template-columns: 22rem 1fr; gap: 1rem; }
textarea { width: 100%; height: 6rem; font: 12px monospace; }
iframe#app { width: 100%; height: 480px; border: 1px solid #bbb; border-radius: 6px; background: #fff; box-sizing: border-box; }
iframe#app.borderless { border: 0; border-radius: 0; background: transparent; }
pre { white-space: pre-wrap; background: #f5f5f5; padding: .5rem; max-height: 16rem; overflow: auto; }
li { font: 12px monospace; }
</style>
</head>
<body>
<h1>mcpkit apps</h1>
<div id="layout">
<section>
<label for="tool">App tool</label><br>
<select id="tool"></select>
<p id="description"></p>
<p id="signature"></p>
<label for="args">Arguments (JSON)</label>
<textarea id="args">{}</textarea>
<button id="run" type="button">Run</button>
<p id="status" role="status"></p>
<h2>Result</h2>
<pre id="result"></pre>
<h2>From the view</h2>
<ul id="events"></ul>
</section>
<section><p id="view-origin"></p><div id="view"></div></section>
</div>
<script type="module" src="/host.js"></script>
</body>
</html>
`;

export const HOST_JS = `import { AppBridge, PostMessageTransport } from '/bridge.js';

const $ = (id) => document.getElementById(id);
async function api(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-mcpkit-apps': '1' },
    body: JSON.stringify(body ?? {}),
  });
  const value = await res.json();
  if (!res.ok) {
    const error = new Error(value.error?.message ?? res.statusText);
    error.data = value.error;
    throw error;
  }
  return value;
}
function event(kind, text) {
  const li = document.createElement('li');
  li.dataset.kind = kind;
  li.textContent = kind + ': ' + text;
  $('events').append(li);
}
function status(text) {
  $('status').textContent = text;
}

const { tools, version } = await api('/api/tools');
for (const t of tools) {
  const option = document.createElement('option');
  option.value = t.name;
  option.textContent = t.server + ' / ' + t.tool;
  $('tool').append(option);
}
const chosen = () => tools.find((t) => t.name === $('tool').value);
// What the tool takes, from its input schema: "name?: type" per property.
const signature = (schema) => {
  const props = schema && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const parts = Object.keys(props).map(
    (k) => k + (required.has(k) ? '' : '?') + ': ' + String(props[k]?.type ?? 'any'),
  );
  return parts.length ? 'arguments: ' + parts.join(', ') : 'no arguments';
};
const describe = () => {
  const t = chosen();
  $('description').textContent = t?.description ?? 'no server lists a tool with a view';
  $('signature').textContent = t ? signature(t.inputSchema) : '';
};
$('tool').addEventListener('change', describe);
describe();
const wanted = new URLSearchParams(location.search).get('tool');
if (wanted && tools.some((t) => t.name === wanted)) {
  $('tool').value = wanted;
  describe();
}
status(tools.length + ' App tools');

let bridge;
let shownServer;
// The extension: a host sends ui/resource-teardown before it removes a view, and waits
// (here at most 2 s) for the answer, so the view can keep what it has not saved.
async function teardown(reason) {
  if (!bridge) return;
  const old = bridge;
  bridge = undefined;
  try {
    await old.teardownResource({ reason }, { timeout: 2000 });
    event('teardown', shownServer + ' answered');
  } catch (e) {
    event('teardown', shownServer + ' did not answer: ' + e.message);
  }
  await old.close().catch(() => {});
}
async function run() {
  const t = chosen();
  if (!t) return;
  let args;
  try {
    args = JSON.parse($('args').value || '{}');
  } catch (e) {
    status('the arguments are not JSON: ' + e.message);
    return;
  }
  status('running ' + t.name);
  let result;
  try {
    result = await api('/api/call', { server: t.server, tool: t.tool, arguments: args });
  } catch (e) {
    status('the call failed: ' + e.message);
    return;
  }
  $('result').textContent = JSON.stringify(result, null, 2);
  const view = await api('/api/view', { server: t.server, uri: t.resourceUri });
  await teardown('another tool was run');
  shownServer = t.server;
  const iframe = document.createElement('iframe');
  iframe.id = 'app';
  iframe.title = t.server + ' view';
  // Either an opaque origin or the view's own (another port than this page's): the view
  // reaches nothing of this page but postMessage.
  iframe.setAttribute('sandbox', view.sandbox);
  if (view.allow) iframe.setAttribute('allow', view.allow);
  if (view.prefersBorder === false) iframe.className = 'borderless';
  iframe.dataset.prefersBorder = String(view.prefersBorder ?? 'not declared');
  $('view-origin').textContent = !view.domain
    ? 'view origin: opaque (sandboxed)'
    : view.domain.origin
      ? 'view origin: ' + view.domain.origin + ' (its domain "' + view.domain.declared + '")'
      : 'view origin: opaque; its domain "' + view.domain.declared + '" was declined: ' + view.domain.declined;
  $('view').replaceChildren(iframe);
  const b = new AppBridge(
    null,
    { name: 'mcpkit apps', version },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} }, updateModelContext: { text: {} } },
    { hostContext: { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'] } },
  );
  b.oncalltool = async (params) => {
    try {
      const r = await api('/api/app-call', { server: t.server, tool: params.name, arguments: params.arguments ?? {} });
      event('app-call', t.server + '/' + params.name + ' ok');
      return r;
    } catch (e) {
      event('app-call-refused', t.server + '/' + params.name + ': ' + (e.data?.reason ?? e.message));
      throw e;
    }
  };
  b.onreadresource = async (params) => api('/api/app-read', { server: t.server, uri: params.uri });
  b.onopenlink = async (params) => {
    event('open-link', String(params.url));
    return {};
  };
  b.onmessage = async (params) => {
    const text = (params.content ?? []).map((c) => (c.type === 'text' ? c.text : '[' + c.type + ']')).join(' ');
    event('message', text);
    return {};
  };
  b.onloggingmessage = (params) => event('log', JSON.stringify(params.data));
  b.onrequestdisplaymode = async () => ({ mode: 'inline' });
  b.onupdatemodelcontext = async (params) => {
    event('model-context', JSON.stringify(params));
    return {};
  };
  b.onrequestteardown = async () => {
    await teardown('the view asked');
    iframe.remove();
    $('view-origin').textContent = '';
  };
  b.onsizechange = ({ height }) => {
    if (typeof height === 'number' && height > 0) iframe.style.height = Math.min(height, 4000) + 'px';
  };
  b.oninitialized = async () => {
    event('initialized', t.server);
    await b.sendToolInput({ arguments: args });
    await b.sendToolResult(result);
    status('shown: ' + t.name);
  };
  bridge = b;
  await b.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.src = view.src;
}
$('run').addEventListener('click', () => {
  run().catch((e) => status('the view failed: ' + e.message));
});
`;
