// Types of bin/kept-sources.js (plain JavaScript: bin/kept-build.js needs it before any TypeScript can be loaded).
export interface Sources {
  files: Record<string, string | undefined>;
  dirs: Record<string, string | undefined>;
}
export function sha256(data: string | Uint8Array): string;
export function hashFile(file: string): string | undefined;
export function sourcesOf(files: string[], read?: Map<string, string>): Sources;
export function freshRecord(file: string, key: string): ({ key: string; sources: Sources } & Record<string, unknown>) | undefined;
export function tempName(file: string): string;
export function writeAtomic(file: string, text: string): void;
