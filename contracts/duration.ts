// One way to print how long something took, for the report's stage tables and the loop's UI details.

/** `850 ms`, `14.2 s`, `3.5 min`, `2.1 h`. */
export const duration = (ms: number) =>
  ms < 1000
    ? `${ms} ms`
    : ms < 120_000
      ? `${(ms / 1000).toFixed(1)} s`
      : ms < 7_200_000
        ? `${(ms / 60_000).toFixed(1)} min`
        : `${(ms / 3_600_000).toFixed(1)} h`;
