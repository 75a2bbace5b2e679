// Whether the window is phone-narrow (at most 700 px): list pages show fewer, denser columns then.
import { onMounted, onUnmounted, ref, type Ref } from 'vue';

export function useNarrow(query = '(max-width: 700px)'): Ref<boolean> {
  const narrow = ref(false);
  const mq = window.matchMedia?.(query);
  const onChange = () => (narrow.value = mq?.matches ?? false);
  onMounted(() => {
    onChange();
    mq?.addEventListener('change', onChange);
  });
  onUnmounted(() => mq?.removeEventListener('change', onChange));
  return narrow;
}
