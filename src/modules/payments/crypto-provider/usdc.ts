/** USD cents as a USDC amount with two decimals: 1250n → "12.50". */
export function usdcOfCents(cents: bigint): string {
  const whole = cents / 100n;
  const fraction = (cents % 100n).toString().padStart(2, '0');
  return `${whole}.${fraction}`;
}

/**
 * A USDC amount ("12.50", "12.5", "12", "12.500000") in cents; undefined when it is not a
 * non-negative decimal in whole cents.
 */
export function centsOfUsdc(amount: string): bigint | undefined {
  const match = /^(0|[1-9]\d{0,30})(?:\.(\d{1,18}))?$/.exec(amount);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (!/^\d{0,2}0*$/.test(fraction)) return undefined;
  return BigInt(match[1] as string) * 100n + BigInt(fraction.slice(0, 2).padEnd(2, '0'));
}
