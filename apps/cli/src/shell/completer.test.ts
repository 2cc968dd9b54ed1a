import { describe, expect, it } from 'vitest';
import { ShellNames } from './completer.js';

function names(): ShellNames {
  const n = new ShellNames(['github', 'everything']);
  n.tools = [
    { server: 'everything', tool: 'echo', name: 'mcp__everything__echo' },
    { server: 'everything', tool: 'get-sum', name: 'mcp__everything__get-sum' },
    { server: 'github', tool: 'create_issue', name: 'mcp__github__create_issue' },
    // What a hostile server may name a tool: never offered.
    { server: 'everything', tool: 'e\u001b]0;pwned\u0007', name: 'mcp__everything__e_0_pwned_' },
    { server: 'everything', tool: 'echo two', name: 'mcp__everything__echo_two_1a2b3c4d' },
  ];
  n.prompts = [{ server: 'everything', prompt: 'simple-prompt' }];
  n.resources = [{ server: 'everything', uri: 'demo://resource/static/document/a.md' }];
  return n;
}

describe('ShellNames.complete', () => {
  it('completes commands, then servers, then the tools, prompts and resources of that server', () => {
    const n = names();
    expect(n.complete('rec')).toEqual([['reconnect '], 'rec']);
    expect(n.complete('tools ')).toEqual([['everything', 'github'], '']);
    expect(n.complete('call everything e')).toEqual([['echo '], 'e']);
    expect(n.complete('call github ')).toEqual([['create_issue '], '']);
    expect(n.complete('prompt everything s')).toEqual([['simple-prompt '], 's']);
    expect(n.complete('read everything demo://')).toEqual([
      ['demo://resource/static/document/a.md '],
      'demo://',
    ]);
    // `call` also takes a host name as its first word.
    expect(n.complete('call mcp__github')).toEqual([['mcp__github__create_issue '], 'mcp__github']);
  });

  it('never offers a name with terminal controls or spaces in it (readline prints matches raw)', () => {
    const [hits] = names().complete('call everything ');
    expect(hits).toEqual(['echo', 'get-sum']);
  });

  it('offers nothing after the words a command takes', () => {
    expect(names().complete('call everything echo {')).toEqual([[], '{']);
    expect(names().complete('servers x')).toEqual([[], 'x']);
  });
});
