import { describe, expect, it } from 'vitest';
import { changedFields } from './changed-fields.js';

describe('changedFields', () => {
  it('keeps each field whose value changed, with its old and new value', () => {
    expect(changedFields({ percent: 5, roles: ['a'] }, { percent: 25, roles: ['a'] })).toEqual({
      percent: { from: 5, to: 25 },
    });
  });

  it('compares lists by content and order', () => {
    expect(changedFields({ roles: ['a', 'b'] }, { roles: ['a', 'b'] })).toEqual({});
    expect(changedFields({ roles: ['a', 'b'] }, { roles: ['b', 'a'] })).toEqual({
      roles: { from: ['a', 'b'], to: ['b', 'a'] },
    });
  });

  it('reports a field set to null', () => {
    expect(changedFields({ path: '/x' }, { path: null })).toEqual({
      path: { from: '/x', to: null },
    });
  });
});
