// A finished run's files over HTTP (GET /runs/<runId>/files): the listing the client downloads
// by, and verifies each file against as it arrives.

export interface RunFileEntry {
  /** Relative to the run folder, with forward slashes. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface RunFileListing {
  runId: string;
  files: RunFileEntry[];
}
