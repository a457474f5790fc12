/**
 * The OpenAPI document as YAML (GET /docs/openapi.yaml), loaded by its first request: the YAML
 * library is not needed by any other.
 */
import { Document as YamlDocument, Pair, Scalar, YAMLMap } from "yaml";

/**
 * YAML that every loader reads as the JSON document. The writer quotes what a YAML 1.2 loader
 * would not read as a string; a string a YAML 1.1 loader (PyYAML, SnakeYAML, js-yaml 3) reads
 * as something else when written plain is quoted too: a date (`2026-11-22` is a timestamp in
 * 1.1), `yes`/`on`/`n` (booleans), `0777` (octal), `1_000`, `<<` (a merge key), `=` (PyYAML's
 * value tag).
 */
export function toYaml(document: unknown): string {
  const scalar = (text: string) => (YAML_1_1_NON_STRINGS.some((test) => test.test(text)) ? Object.assign(new Scalar(text), { type: Scalar.QUOTE_DOUBLE }) : text);
  const quoted = (value: unknown): unknown => {
    if (typeof value === "string") return scalar(value);
    if (Array.isArray(value)) return value.map(quoted);
    if (!value || typeof value !== "object") return value;
    const map = new YAMLMap();
    for (const [key, v] of Object.entries(value)) map.items.push(new Pair(scalar(key), quoted(v)));
    return map;
  };
  return new YamlDocument(quoted(document), { aliasDuplicateObjects: false }).toString();
}

/** The plain scalars YAML 1.1 resolves to something other than a string: its schema's implicit tags, and PyYAML's `=`. */
const YAML_1_1_NON_STRINGS: RegExp[] = [
  ...new YamlDocument(null, { version: "1.1" }).schema.tags.flatMap((tag) => ("test" in tag && tag.test && tag.default && tag.tag !== "tag:yaml.org,2002:str" ? [tag.test] : [])),
  /^=$/,
];

