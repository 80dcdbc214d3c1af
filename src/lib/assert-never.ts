/**
 * The default branch of an exhaustive switch over a tagged union (lifecycles are tagged unions:
 * ARCHITECTURE.md): a new variant fails compilation here, and a value outside the union (bad data)
 * fails loudly at run time.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
