// Imported for its effect, first of all by kafka.ts: the speedups (kafkajs-speedups.ts) replace modules of
// kafkajs in the module cache, which only takes effect before kafkajs's own modules that hold them load.
// The producer's sendMessages is one of those and loads with the kafkajs package itself, so this runs
// before kafka.ts imports the package.
import { installKafkajsSpeedups } from './kafkajs-speedups.ts';

export const kafkajsSpeedups = installKafkajsSpeedups();
