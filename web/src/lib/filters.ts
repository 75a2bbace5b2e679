// The fields of a list page's filter bar (components/FilterBar.vue), and the ones several pages share.
import { SEVERITIES } from '../api/client';

export interface TextFilter<K> {
  kind: 'text';
  key: K;
  label: string;
  /** The input's accessible name when it is not the label's text. */
  ariaLabel?: string;
  /** The input's name attribute. */
  name?: string;
  placeholder?: string;
  /** The input's type, e.g. 'search'. */
  type?: string;
  /** Takes the row's free width. */
  grow?: boolean;
}

export interface SelectFilter<K> {
  kind: 'select';
  key: K;
  label: string;
  /** The visible label's id (the select is labelled by it). */
  id: string;
  options: { label: string; value: string }[];
  multiple?: boolean;
  clearable?: boolean;
  placeholder?: string;
  minWidth: number;
}

export type Filter<F> = TextFilter<keyof F & string> | SelectFilter<keyof F & string>;

/** Options whose labels are their values. */
export const optionsOf = (values: readonly string[]) => values.map((v) => ({ label: v, value: v }));

/** A clearable select of several values, "any" when empty. */
export const anyOf = <K>(key: K, label: string, id: string, values: readonly string[], minWidth: number): SelectFilter<K> => ({
  kind: 'select',
  key,
  label,
  id,
  options: optionsOf(values),
  multiple: true,
  placeholder: 'any',
  clearable: true,
  minWidth,
});

/** Severities, any of them. */
export const severityFilter = <K>(key: K, id: string, minWidth: number) => anyOf(key, 'Severity', id, SEVERITIES, minWidth);

/** The hosts search box (hosts and host changes pages): `?search=`, hostname or display name. */
export const hostSearchFilter = <K>(key: K, label: string): TextFilter<K> => ({
  kind: 'text',
  key,
  label,
  ariaLabel: 'Search hosts',
  name: 'search',
  placeholder: 'hostname or display name',
});
