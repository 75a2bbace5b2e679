// Routes are lazy (each page its own chunk) so the login and dashboard routes load little JavaScript.
// `meta.admin` pages are left out of a monitor's navigation and refused by this guard (the API
// refuses their calls with 403 anyway).
import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router';
import { useAuth } from './stores/auth';

declare module 'vue-router' {
  interface RouteMeta {
    title?: string;
    admin?: boolean;
    public?: boolean;
  }
}

const routes: RouteRecordRaw[] = [
  { path: '/login', name: 'login', component: () => import('./views/LoginView.vue'), meta: { title: 'Log in', public: true } },
  { path: '/', name: 'dashboard', component: () => import('./views/DashboardView.vue'), meta: { title: 'Dashboard' } },
  { path: '/events', name: 'events', component: () => import('./views/EventsView.vue'), meta: { title: 'Events' } },
  { path: '/events/:id', name: 'event', component: () => import('./views/EventDetailView.vue'), meta: { title: 'Event' } },
  { path: '/hosts', name: 'hosts', component: () => import('./views/HostsView.vue'), meta: { title: 'Hosts' } },
  { path: '/hosts/:id', name: 'host', component: () => import('./views/HostDetailView.vue'), meta: { title: 'Host' } },
  {
    path: '/host-changes',
    name: 'host-changes',
    component: () => import('./views/HostChangesView.vue'),
    meta: { title: 'Host changes' },
  },
  { path: '/problems', name: 'problems', component: () => import('./views/ProblemsView.vue'), meta: { title: 'Problems' } },
  {
    path: '/problems/:id',
    name: 'problem',
    component: () => import('./views/ProblemDetailView.vue'),
    meta: { title: 'Problem' },
  },
  { path: '/reports', name: 'reports', component: () => import('./views/ReportsView.vue'), meta: { title: 'Daily reports' } },
  { path: '/settings', redirect: '/settings/event-types' },
  {
    path: '/settings/notifications',
    name: 'notifications',
    component: () => import('./views/NotificationsView.vue'),
    meta: { title: 'Notifications', admin: true },
  },
  {
    path: '/settings/event-types',
    name: 'settings-types',
    component: () => import('./views/SettingsView.vue'),
    meta: { title: 'Settings', admin: true },
  },
  {
    path: '/settings/users',
    name: 'users',
    component: () => import('./views/UsersView.vue'),
    meta: { title: 'Users', admin: true },
  },
  {
    path: '/settings/api-keys',
    name: 'api-keys',
    component: () => import('./views/ApiKeysView.vue'),
    meta: { title: 'API keys', admin: true },
  },
  {
    path: '/settings/devices',
    name: 'devices',
    component: () => import('./views/DevicesView.vue'),
    meta: { title: 'Devices', admin: true },
  },
  {
    path: '/settings/remote-access',
    name: 'remote-access',
    component: () => import('./views/RemoteAccessView.vue'),
    meta: { title: 'Remote access', admin: true },
  },
  {
    path: '/settings/audit',
    name: 'audit',
    component: () => import('./views/AuditView.vue'),
    meta: { title: 'Audit log', admin: true },
  },
  {
    path: '/account/security',
    name: 'security',
    component: () => import('./views/SecurityView.vue'),
    meta: { title: 'Security' },
  },
  { path: '/forbidden', name: 'forbidden', component: () => import('./views/ForbiddenView.vue'), meta: { title: 'Not allowed' } },
  { path: '/:rest(.*)*', name: 'not-found', component: () => import('./views/NotFoundView.vue'), meta: { title: 'Not found' } },
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
