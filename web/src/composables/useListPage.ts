// A list page whose filters and page live in the URL (events, problems, hosts, host changes): the form
// only writes the URL and the URL drives the fetch, so reload and back/forward restore the list. The
// form follows the URL on every change of its query; a load started later wins over one still under way;
// a quiet reload (live frames) shows no loading state and reads the URL's filters, never ones typed
// but not yet applied.
import { computed, onScopeDispose, ref, watch, type Ref } from 'vue';
import { useRouter, type LocationQuery, type Router } from 'vue-router';
import { errorText } from '../api/client';
import { cleanQuery, qInt } from '../lib/format';

/** URL query values: undefined, null and '' drop the parameter. */
export type QueryValues = Record<string, string | number | null | undefined>;

/** What a list endpoint answers (openapi-fetch's result has this shape). */
export interface ListAnswer {
  data?: { items: unknown[]; total: number };
  error?: unknown;
}

export type RowOf<A extends ListAnswer> = NonNullable<A['data']>['items'][number];

export interface LoadContext<F> {
  /** The filters of the URL, as `fromQuery` reads them. */
  filters: F;
  query: LocationQuery;
  page: number;
  pageSize: number;
  /** A background reload: the loading state stays off. */
  quiet: boolean;
}

export interface ListPageOptions<F, A extends ListAnswer> {
  /** The form's values of a URL query. */
  fromQuery(query: LocationQuery): F;
  /** The URL parameters of the form (page aside). */
  toQuery(form: F): QueryValues;
  /** Fetches one page. */
  fetch(ctx: LoadContext<F>): Promise<A>;
  /** After the newest load's answer is shown (rows, total, error); `previous`: the rows it replaced. */
  loaded?(answer: A, ctx: LoadContext<F>, previous: RowOf<A>[]): void;
  /** The URL's query changed; called before its load. */
  queryChanged?(): void;
  /** The error shown when a load fails without a message of the API. */
  failure: string;
  pageSize?: number;
  /** `apply` keeps the URL's other parameters (a time range) instead of replacing the whole query. */
  keepQuery?: boolean;
  /** For tests; a component gets its app's router. */
  router?: Router;
}

export function useListPage<F, A extends ListAnswer>(o: ListPageOptions<F, A>) {
  const router = o.router ?? useRouter();
  const route = router.currentRoute;
  const pageSize = o.pageSize ?? 50;
  const form = ref(o.fromQuery(route.value.query)) as Ref<F>;
  const rows = ref([]) as Ref<RowOf<A>[]>;
  const total = ref(0);
  const loading = ref(false);
  const error = ref('');
  const page = computed(() => qInt(route.value.query.page, 1));
  const pageCount = computed(() => Math.max(1, Math.ceil(total.value / pageSize)));
  let seq = 0;

  async function load(quiet = false): Promise<void> {
    const mine = ++seq;
    if (!quiet) loading.value = true;
    const query = route.value.query;
    const ctx: LoadContext<F> = { filters: o.fromQuery(query), query, page: page.value, pageSize, quiet };
    const answer = await o.fetch(ctx);
    if (mine !== seq) return; // a newer load started meanwhile: its answer counts
    loading.value = false;
    const previous = rows.value;
    if (answer.data) {
      rows.value = answer.data.items as RowOf<A>[];
      total.value = answer.data.total;
      error.value = '';
    } else error.value = errorText(answer.error, o.failure);
    o.loaded?.(answer, ctx, previous);
  }

  /** A function that says whether a load has started since this call (an answer about to be stale). */
  function staleCheck(): () => boolean {
    const at = seq;
    return () => at !== seq;
  }

  /** The form back to the URL's filters. */
  function syncForm() {
    form.value = o.fromQuery(route.value.query);
  }

  watch(
    () => route.value.query,
    () => {
      syncForm();
      o.queryChanged?.();
      void load();
    },
    { immediate: true },
  );

  /** The URL's query with changes (undefined or null removes a key); back to page 1 unless `page` is given. */
  function go(changes: QueryValues) {
    const next: QueryValues = {};
    for (const [k, v] of Object.entries({ ...route.value.query, page: undefined, ...changes }))
      next[k] = v == null ? undefined : String(v);
    void router.push({ query: cleanQuery(next) });
  }

  /** The form (and `changes`) into the URL, at page `p`: the URL's change loads the list. */
  function apply(p = 1, changes: QueryValues = {}) {
    const query = { ...o.toQuery(form.value), ...changes, page: p > 1 ? p : undefined };
    if (o.keepQuery) go(query);
    else void router.push({ query: cleanQuery(query) });
  }

  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastQuiet = 0;
  /** A quiet reload in `delayMs`, and no sooner than `minGapMs` after the previous one; one waits at a time. */
  function reloadSoon(delayMs: number, minGapMs = 0) {
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = null;
        lastQuiet = Date.now();
        void load(true);
      },
      Math.max(delayMs, lastQuiet + minGapMs - Date.now()),
    );
  }
  onScopeDispose(() => {
    if (timer) clearTimeout(timer);
  });

  return { form, rows, total, loading, error, page, pageSize, pageCount, load, staleCheck, syncForm, go, apply, reloadSoon };
}
