/** What travels through Temporal instead of data: a content-addressed pointer into the artifact store. */
export interface ArtifactRef {
  uri: string;
  sha256: string;
  rows: number;
  bytes: number;
}
