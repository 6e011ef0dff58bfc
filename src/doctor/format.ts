// Durations as an operator reads them in the report (1h40m51s); config
// values use the config's own form (seconds() of contract/checks.ts) instead.
export function humanDuration(ms: number): string {
  let rest = Math.round(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return `${ms < 0 ? '-' : ''}${parts.join('') || '0s'}`;
}
