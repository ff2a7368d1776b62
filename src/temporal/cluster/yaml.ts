import { stringify } from 'yaml';

/** A value the config files hold: scalars, lists and maps. */
export type YamlValue = string | number | boolean | null | YamlValue[] | YamlMap;
export interface YamlMap {
  [key: string]: YamlValue;
}

/**
 * A YAML document for `doc` (the `yaml` package, YAML 1.2), block style, strings double-quoted so no
 * value is ever read back as another type.
 */
export function toYaml(doc: YamlMap): string {
  return stringify(doc, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
}
