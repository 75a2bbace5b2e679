// The chart component and Chart.js load in their own chunk, after the dashboard's first paint.
import { defineAsyncComponent } from 'vue';

export default defineAsyncComponent(() => import('./BarChart.vue'));
