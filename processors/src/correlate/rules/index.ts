// The correlation rules, in the order each event meets them.
import { hostSilenceRule } from './host-silence.ts';
import { identityRule } from './identity.ts';
import { inventoryRule } from './inventory.ts';
import { rdgFlapRule } from './rdg-flap.ts';
import { severityRule } from './severity.ts';
import type { Rule } from './rule.ts';

export type { CorrelateSettings, EventCtx, Rule } from './rule.ts';
export const RULES: readonly Rule[] = [hostSilenceRule, identityRule, inventoryRule, rdgFlapRule, severityRule];
