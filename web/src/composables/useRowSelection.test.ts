// The checked rows of a list page (useRowSelection): by id, in the page's order, kept across a reload
// for the rows still listed.
import { describe, expect, it } from 'vitest';
import { ref } from 'vue';
import { useRowSelection } from './useRowSelection';

const rowsOf = (...ids: string[]) => ids.map((id) => ({ id }));

describe('useRowSelection', () => {
  it('toggles one row or the whole page and lists the chosen rows in page order', () => {
    const rows = ref(rowsOf('a', 'b', 'c'));
    const s = useRowSelection(rows, (r) => r.id);
    expect(s.all.value).toBe(false);
    s.toggle('c', true);
    s.toggle('a', true);
    expect(s.chosen.value).toEqual(rowsOf('a', 'c'));
    expect(s.has('a')).toBe(true);
    s.toggle('a', false);
    expect(s.chosen.value).toEqual(rowsOf('c'));
    s.toggleAll(true);
    expect(s.all.value).toBe(true);
    s.toggleAll(false);
    expect(s.chosen.value).toEqual([]);
    rows.value = [];
    s.toggleAll(true);
    expect(s.all.value).toBe(false); // an empty page is never "all checked"
  });

  it('after a reload keeps the rows still listed; clear drops every one', () => {
    const rows = ref(rowsOf('a', 'b', 'c'));
    const s = useRowSelection(rows, (r) => r.id);
    s.toggleAll(true);
    rows.value = rowsOf('b', 'c', 'd');
    s.keepOnPage();
    expect(s.chosen.value).toEqual(rowsOf('b', 'c'));
    rows.value = rowsOf('a', 'b', 'c', 'd');
    expect(s.chosen.value).toEqual(rowsOf('b', 'c')); // 'a' left the page, so it is no longer checked
    s.clear();
    expect(s.chosen.value).toEqual([]);
  });
});
