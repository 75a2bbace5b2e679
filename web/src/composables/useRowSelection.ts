// The rows checked on a list page, by id: what a bulk action acts on. `keepOnPage` after a reload
// keeps the ids still listed (a live reload keeps the selection), `clear` drops them all.
import { computed, ref, type Ref } from 'vue';

export function useRowSelection<Row, Id>(rows: Ref<Row[]>, idOf: (row: Row) => Id) {
  const ids = ref(new Set<Id>()) as Ref<Set<Id>>;
  /** The checked rows on the page, in the page's order. */
  const chosen = computed(() => rows.value.filter((r) => ids.value.has(idOf(r))));
  /** Every row of the page is checked (and there is one). */
  const all = computed(() => rows.value.length > 0 && rows.value.every((r) => ids.value.has(idOf(r))));
  const has = (id: Id) => ids.value.has(id);
  function toggle(id: Id, on: boolean) {
    const next = new Set(ids.value);
    if (on) next.add(id);
    else next.delete(id);
    ids.value = next;
  }
  function toggleAll(on: boolean) {
    ids.value = on ? new Set(rows.value.map(idOf)) : new Set();
  }
  function clear() {
    ids.value = new Set();
  }
  function keepOnPage() {
    const onPage = new Set(rows.value.map(idOf));
    ids.value = new Set([...ids.value].filter((id) => onPage.has(id)));
  }
  return { chosen, all, has, toggle, toggleAll, clear, keepOnPage };
}
