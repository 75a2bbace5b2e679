// Problems: the state machine (state.ts) and the store the correlator writes and the API reads (store.ts).
export * from './state.ts';
export * from './store.ts';
