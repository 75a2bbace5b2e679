// Vite build of the SPA (served by the api role from web/dist) and `npm run dev:web` (Vite dev server
// with the API proxied: WATCHPOST_API, default http://127.0.0.1:8080).
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

const api = process.env.WATCHPOST_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [vue()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed names under /assets/: the API serves them as immutable.
    assetsDir: 'assets',
    chunkSizeWarningLimit: 600,
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': { target: api, changeOrigin: false },
      '/health': { target: api },
    },
  },
});
