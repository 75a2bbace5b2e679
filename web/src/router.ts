// Routes are lazy (each page its own chunk) so the login and dashboard routes load little JavaScript.
// `meta.admin` pages are left out of a monitor's navigation and refused by this guard (the API
// refuses their calls with 403 anyway).
import { createRouter, createWebHistory, type RouteComponent, type RouteMeta, type RouteRecordRaw } from 'vue-router';
import { useAuth } from './stores/auth';

type Lazy = () => Promise<RouteComponent | { default: RouteComponent }>;

declare module 'vue-router' {
  interface RouteMeta {
    title?: string;
    /** The navigation link's text where it is shorter than the title. */
    nav?: string;
    admin?: boolean;
    public?: boolean;
  }
}

/** A page: its path, name, lazily loaded view and title (the tab's), with more `meta` where it has any. */
const page = (path: string, name: string, component: Lazy, title: string, meta: RouteMeta = {}): RouteRecordRaw => ({
  path,
  name,
  component,
  meta: { title, ...meta },
});
/** A page for admins only. */
const admin = (path: string, name: string, component: Lazy, title: string) => page(path, name, component, title, { admin: true });

const routes: RouteRecordRaw[] = [
  page('/login', 'login', () => import('./views/LoginView.vue'), 'Log in', { public: true }),
  page('/', 'dashboard', () => import('./views/DashboardView.vue'), 'Dashboard'),
  page('/events', 'events', () => import('./views/EventsView.vue'), 'Events'),
  page('/events/:id', 'event', () => import('./views/EventDetailView.vue'), 'Event'),
  page('/hosts', 'hosts', () => import('./views/HostsView.vue'), 'Hosts'),
  page('/hosts/:id', 'host', () => import('./views/HostDetailView.vue'), 'Host'),
  page('/host-changes', 'host-changes', () => import('./views/HostChangesView.vue'), 'Host changes'),
  page('/problems', 'problems', () => import('./views/ProblemsView.vue'), 'Problems'),
  page('/problems/:id', 'problem', () => import('./views/ProblemDetailView.vue'), 'Problem'),
  page('/reports', 'reports', () => import('./views/ReportsView.vue'), 'Daily reports', { nav: 'Reports' }),
  { path: '/settings', redirect: '/settings/event-types' },
  admin('/settings/notifications', 'notifications', () => import('./views/NotificationsView.vue'), 'Notifications'),
  admin('/settings/event-types', 'settings-types', () => import('./views/SettingsView.vue'), 'Settings'),
  admin('/settings/users', 'users', () => import('./views/UsersView.vue'), 'Users'),
  admin('/settings/api-keys', 'api-keys', () => import('./views/ApiKeysView.vue'), 'API keys'),
  admin('/settings/devices', 'devices', () => import('./views/DevicesView.vue'), 'Devices'),
  admin('/settings/remote-access', 'remote-access', () => import('./views/RemoteAccessView.vue'), 'Remote access'),
  admin('/settings/audit', 'audit', () => import('./views/AuditView.vue'), 'Audit log'),
  page('/account/security', 'security', () => import('./views/SecurityView.vue'), 'Security'),
  page('/forbidden', 'forbidden', () => import('./views/ForbiddenView.vue'), 'Not allowed'),
  page('/:rest(.*)*', 'not-found', () => import('./views/NotFoundView.vue'), 'Not found'),
];

export const router = createRouter({ history: createWebHistory(), routes });

router.beforeEach(async (to) => {
  const auth = useAuth();
  await auth.restore();
  if (to.meta.public) return auth.user && to.name === 'login' ? { path: (to.query.redirect as string) || '/' } : true;
  if (!auth.user) return { name: 'login', query: to.fullPath === '/' ? {} : { redirect: to.fullPath } };
  if (to.meta.admin && !auth.isAdmin) return { name: 'forbidden', query: { from: to.path } };
  // SERVICE_REQUIRE_TOTP_FOR_ADMINS: the API refuses admin calls until the admin enrols; the page that enrols instead.
  if (to.meta.admin && auth.user.mfa_enrolment_required) return { name: 'security' };
  return true;
});
