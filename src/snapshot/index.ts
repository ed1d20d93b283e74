// Snapshots: a shadow git store per project that records the worktree at step boundaries, so
// undo can put back exactly the files a session's steps changed (whatever changed them) and a
// session's diff can be shown. It reaches git only through the spawner.
export { createSnapshotStore, SNAPSHOT_DEFAULTS, type Entry, type SnapshotSettings, type SnapshotStore, type SnapshotStoreDeps, type TrackResult } from "./store"
export { restoreFiles, statesAt, filesFrom, diskEntry, blobId, type RestoreResult, type State, type StepPatch } from "./restore"
export { fileDiff, fileDiffs, unifiedDiff } from "./diff"
export { snapshotSettings } from "./settings"
