// Checks a form runs before saving, worded as the API's errors are shown (api/client.ts errorText):
// "Port: must be between 1 and 65535". Number inputs are not clamped (a clamped 99999 would be saved
// as 65535 without a word); they are checked here and the save refused with the message.

/** Why a whole number is not acceptable, or null (empty is acceptable: the field keeps its value). */
export function numberProblem(label: string, v: number | null | undefined, min: number, max: number): string | null {
  if (v === null || v === undefined) return null;
  if (!Number.isInteger(v)) return `${label}: must be a whole number`;
  if (v < min || v > max) return `${label}: must be between ${min} and ${max}`;
  return null;
}

/** A TCP port. */
export const portProblem = (v: number | null | undefined, label = 'Port') => numberProblem(label, v, 1, 65535);
