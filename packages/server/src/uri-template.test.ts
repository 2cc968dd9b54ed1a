import { describe, expect, it } from 'vitest';
import { UriTemplate } from './uri-template.js';

describe('UriTemplate', () => {
  it('matches simple variables within one segment', () => {
    const t = new UriTemplate('test://template/{id}/data');
    expect(t.match('test://template/123/data')).toEqual({ id: '123' });
    expect(t.match('test://template/1/2/data')).toBeUndefined();
    expect(t.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
  });

  it('lets reserved expansion span segments and reads query variables', () => {
    expect(new UriTemplate('file:///{+path}').match('file:///a/b/c.txt')).toEqual({
      path: 'a/b/c.txt',
    });
    expect(new UriTemplate('db://rows{?limit,offset}').match('db://rows?limit=5')).toEqual({
      limit: '5',
    });
  });

  it('treats regular-expression characters in the template literally', () => {
    expect(new UriTemplate('x://a.b/{n}').match('x://aXb/1')).toBeUndefined();
  });
});
