// The arithmetic mean recipes' metrics take. Undefined over no values: each caller says what "no data" is (0 for a
// rate over no conversations; left out where a missing score must never read as 0).
export const meanOf = (xs: readonly number[]): number | undefined => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
