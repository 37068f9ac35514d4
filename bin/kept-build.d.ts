// Types of bin/kept-build.js (plain JavaScript: it runs before any TypeScript can be loaded).
export function builtEntry(entry: string, where?: { root?: string; cache?: string }): Promise<string | undefined>;
export function importEntry(entry: string): Promise<unknown>;
/** The project's root folder. */
export const PROJECT: string;
