// The list pages' URL-driven state (useListPage): the form follows the URL, the URL drives the load,
// the newest load wins, failures keep the rows, quiet reloads show no loading state and are spaced.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { effectScope, nextTick } from 'vue';
import { createMemoryHistory, createRouter, type LocationQuery, type Router } from 'vue-router';
import { useListPage, type ListAnswer, type LoadContext } from './useListPage';
import { q } from '../lib/format';

interface Form {
  search: string;
  status: string | null;
}
type Row = { id: number };
type Answer = ListAnswer & { data?: { items: Row[]; total: number } };

async function routerAt(url: string): Promise<Router> {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/list', component: {} }] });
  await router.push(url);
  return router;
}

/** Lets a URL change reach the page's watcher and its fetch answer. */
const settle = async () => {
  await new Promise((r) => setTimeout(r, 0));
  await nextTick();
};

/** A page over a fetch the test answers by hand, in any order. */
function page(router: Router, opts: { keepQuery?: boolean } = {}) {
  const calls: { ctx: LoadContext<Form>; answer: (a: Answer) => void }[] = [];
  const scope = effectScope();
  const list = scope.run(() =>
    useListPage({
      fromQuery: (query: LocationQuery): Form => ({ search: q(query.search), status: q(query.status) || null }),
      toQuery: (f: Form) => ({ search: f.search.trim(), status: f.status }),
      fetch: (ctx) => new Promise<Answer>((answer) => calls.push({ ctx, answer })),
      failure: 'Could not load things',
      pageSize: 20,
      keepQuery: opts.keepQuery,
      router,
    }),
  )!;
  return { list, calls, scope, last: () => calls[calls.length - 1]! };
}

const rowsOf = (...ids: number[]) => ids.map((id) => ({ id }));

afterEach(() => {
  vi.useRealTimers();
});

describe('useListPage', () => {
  it('reads the form and the page from the URL and loads that page', async () => {
    const { list, calls } = page(await routerAt('/list?search=web&status=stale&page=3'));
    expect(list.form.value).toEqual({ search: 'web', status: 'stale' });
    expect(list.page.value).toBe(3);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.ctx).toMatchObject({ filters: { search: 'web', status: 'stale' }, page: 3, pageSize: 20, quiet: false });
    expect(list.loading.value).toBe(true);
    calls[0]!.answer({ data: { items: rowsOf(1, 2), total: 41 } });
    await settle();
    expect(list.loading.value).toBe(false);
    expect(list.rows.value).toEqual(rowsOf(1, 2));
    expect(list.total.value).toBe(41);
    expect(list.pageCount.value).toBe(3);
  });

  it('apply writes the form to the URL (page 1 unless given, empty values left out) and the URL loads', async () => {
    const router = await routerAt('/list?search=web&other=kept');
    const { list, calls, last } = page(router);
    list.form.value = { search: '  db ', status: null };
    list.apply();
    await settle();
    expect(router.currentRoute.value.query).toEqual({ search: 'db' });
    expect(calls).toHaveLength(2);
    expect(last().ctx.filters).toEqual({ search: 'db', status: null });
    list.apply(2, { status: 'online' });
    await settle();
    expect(router.currentRoute.value.query).toEqual({ search: 'db', status: 'online', page: '2' });
    expect(list.form.value).toEqual({ search: 'db', status: 'online' });
    expect(last().ctx.page).toBe(2);
  });

  it('with keepQuery, apply and go keep the other parameters and go back to page 1', async () => {
    const router = await routerAt('/list?range=7d&search=web&page=4');
    const { list } = page(router, { keepQuery: true });
    list.form.value = { search: 'db', status: 'stale' };
    list.apply();
    await settle();
    expect(router.currentRoute.value.query).toEqual({ range: '7d', search: 'db', status: 'stale' });
    list.go({ range: undefined, from: 'a', to: 'b' });
    await settle();
    expect(router.currentRoute.value.query).toEqual({ search: 'db', status: 'stale', from: 'a', to: 'b' });
  });

  it('an answer that arrives after a newer load started is dropped', async () => {
    const router = await routerAt('/list?search=a');
    const { list, calls } = page(router);
    const stale = list.staleCheck();
    await router.push('/list?search=b');
    await settle();
    expect(stale()).toBe(true);
    calls[1]!.answer({ data: { items: rowsOf(2), total: 1 } });
    await settle();
    calls[0]!.answer({ data: { items: rowsOf(1), total: 1 } });
    await settle();
    expect(list.rows.value).toEqual(rowsOf(2));
    expect(list.loading.value).toBe(false);
  });

  it('a failure shows the API message or the fallback and keeps the rows on screen', async () => {
    const { list, calls } = page(await routerAt('/list'));
    calls[0]!.answer({ data: { items: rowsOf(1), total: 1 } });
    await settle();
    void list.load();
    calls[1]!.answer({ error: { error: { code: 'FORBIDDEN', message: 'Not for you' } } });
    await settle();
    expect(list.error.value).toBe('Not for you');
    expect(list.rows.value).toEqual(rowsOf(1));
    void list.load();
    calls[2]!.answer({ error: undefined });
    await settle();
    expect(list.error.value).toBe('Could not load things');
    void list.load();
    calls[3]!.answer({ data: { items: [], total: 0 } });
    await settle();
    expect(list.error.value).toBe('');
  });

  it('a reload reads the filters of the URL, not ones typed but not applied', async () => {
    const { list, last } = page(await routerAt('/list?search=web'));
    list.form.value = { search: 'typed', status: null };
    void list.load(true);
    expect(last().ctx).toMatchObject({ filters: { search: 'web', status: null }, quiet: true });
    expect(list.form.value.search).toBe('typed');
    list.syncForm();
    expect(list.form.value.search).toBe('web');
  });

  it('reloadSoon: one quiet reload at a time, no loading state, spaced by the minimum gap', async () => {
    const { list, calls, scope } = page(await routerAt('/list'));
    calls[0]!.answer({ data: { items: [], total: 0 } });
    await settle();
    vi.useFakeTimers();
    list.reloadSoon(300);
    list.reloadSoon(300); // already waiting
    vi.advanceTimersByTime(299);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.ctx.quiet).toBe(true);
    expect(list.loading.value).toBe(false);
    list.reloadSoon(300, 15_000); // not sooner than 15 s after the previous reload
    vi.advanceTimersByTime(14_999);
    expect(calls).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(3);
    list.reloadSoon(300);
    scope.stop(); // the page goes: its waiting reload with it
    vi.advanceTimersByTime(1000);
    expect(calls).toHaveLength(3);
  });
});
