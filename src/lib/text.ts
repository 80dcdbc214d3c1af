// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/**
 * Text from outside (a node's error, a contract's `symbol()`) made storable and printable: runs
 * of control characters become one space (PostgreSQL text refuses U+0000), ends trimmed.
 */
export function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, ' ').trim();
}
