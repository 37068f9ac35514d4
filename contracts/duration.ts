// One way to print how long something took or will take: the report's stage tables, the UI details' stage times
// and run time, and the progress displays' ETAs.

/** `850 ms`, `4.2 s`, `45 s`, `3.5 min`, `2.1 h`. */
export const duration = (ms: number) =>
  ms < 1000
    ? `${Math.round(ms)} ms`
    : ms < 10_000
      ? `${(ms / 1000).toFixed(1)} s`
      : ms < 120_000
        ? `${Math.round(ms / 1000)} s`
        : ms < 7_200_000
          ? `${(ms / 60_000).toFixed(1)} min`
          : `${(ms / 3_600_000).toFixed(1)} h`;

/** The same, of a number of seconds (an ETA). */
export const durationOfSeconds = (seconds: number) => duration(seconds * 1000);
