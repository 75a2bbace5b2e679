// Dark mode: follows the system until the user picks one (the choice, not a secret, is kept in localStorage).
import { ref, watch } from 'vue';

const KEY = 'watchpost-theme';
const stored = localStorage.getItem(KEY);
const system = window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
const dark = ref(stored ? stored === 'dark' : system);
watch(dark, (d) => localStorage.setItem(KEY, d ? 'dark' : 'light'));

export function useTheme() {
  return { dark, toggle: () => (dark.value = !dark.value) };
}
