// The navigation's links come from the routes (router.ts), so a link's path and text cannot drift from
// its page: the text is the page's title, or `meta.nav` where the link says it shorter.
import type { Router } from 'vue-router';

export interface NavLink {
  to: string;
  label: string;
}

/** The links to the routes named, in that order. */
export const navLinks = (router: Router, names: string[]): NavLink[] =>
  names.map((name) => {
    const r = router.resolve({ name });
    return { to: r.path, label: r.meta.nav ?? r.meta.title ?? name };
  });
