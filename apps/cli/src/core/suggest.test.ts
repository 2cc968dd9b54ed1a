import { describe, expect, it } from 'vitest';
import { didYouMean, nearest } from './suggest.js';

describe('nearest', () => {
  it('finds the command, server and tool that were meant', () => {
    expect(nearest('tool', ['tools', 'servers', 'call'])).toEqual(['tools']);
    expect(nearest('everythin', ['everything', 'notes'])).toEqual(['everything']);
    expect(nearest('get_sum', ['get-sum', 'echo', 'get-env'])).toEqual(['get-sum']);
    expect(nearest('sum', ['get-sum', 'echo'])).toEqual(['get-sum']);
  });

  it('suggests nothing that is only a guess (one-letter names, far words)', () => {
    expect(nearest('c', ['a', 'b'])).toEqual([]);
    expect(nearest('frobnicate', ['tools', 'servers', 'call'])).toEqual([]);
    expect(didYouMean('zzz', ['tools'])).toBe('');
  });

  it('words one or more suggestions', () => {
    expect(didYouMean('tool', ['tools'])).toBe(' — did you mean "tools"?');
    expect(didYouMean('get-su', ['get-sum', 'get-env'])).toBe(' — did you mean "get-sum"?');
  });
});
