// A settings list read when the page opens (API keys, users): its rows and, when the read fails, the
// error the page shows above them; `load` reads it again after a change.
import { onMounted, ref, type Ref } from 'vue';
import { errorText } from '../api/client';

export function useApiList<T>(fetch: () => Promise<{ data?: { items: T[] }; error?: unknown }>, failure: string) {
  const items = ref([]) as Ref<T[]>;
  const error = ref('');
  async function load() {
    const { data, error: e } = await fetch();
    if (data) items.value = data.items;
    else error.value = errorText(e, failure);
  }
  onMounted(load);
  return { items, error, load };
}
