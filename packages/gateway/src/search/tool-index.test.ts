import { describe, expect, it } from 'vitest';
import { ToolIndex, words } from './tool-index.js';

describe('ToolIndex', () => {
  it('splits names at _, -, camelCase and digits', () => {
    expect(words('browser_take_screenshot')).toEqual(['browser', 'take', 'screenshot']);
    expect(words('API-get-self')).toEqual(['API', 'get', 'self']);
    expect(words('getConsoleMessage')).toEqual(['get', 'Console', 'Message']);
    expect(words('HTMLParser2x')).toEqual(['HTML', 'Parser', '2', 'x']);
    expect(words('gitlab-community__list_issues')).toEqual([
      'gitlab',
      'community',
      'list',
      'issues',
    ]);
  });

  it('ranks by name, description and argument names, and follows replace', () => {
    const index = new ToolIndex();
    index.replace([
      { name: 'fs__readFile', description: 'Reads a file from disk.' },
      {
        name: 'web__fetch',
        description: 'Downloads a URL.',
        inputSchema: { properties: { url: { description: 'the address' } } },
      },
      { name: 'math__add', description: 'Sums numbers.' },
    ]);
    expect(index.search('read a file', 3)[0]!.name).toBe('fs__readFile');
    expect(index.search('address', 3).map((t) => t.name)).toEqual(['web__fetch']);
    // A typo of one letter in a long word, and a plural for a singular.
    expect(index.search('dowloads', 3)[0]!.name).toBe('web__fetch');
    expect(index.search('files', 3)[0]!.name).toBe('fs__readFile');
    index.replace([{ name: 'math__multiply', description: 'Multiplies numbers.' }]);
    expect(index.search('read a file', 3)).toEqual([]);
    expect(index.search('number', 1)[0]!.name).toBe('math__multiply');
  });
});
