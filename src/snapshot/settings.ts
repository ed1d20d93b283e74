import type { Config } from "../config"
import { SNAPSHOT_DEFAULTS, type SnapshotSettings } from "./store"

/** The store's settings from config: `snapshot: false` off, an object overrides the defaults. */
export function snapshotSettings(config: Config): SnapshotSettings {
  const s = config.snapshot
  if (s === false) return { ...SNAPSHOT_DEFAULTS, enabled: false }
  if (s === undefined || s === true) return SNAPSHOT_DEFAULTS
  return {
    enabled: true,
    ignore: s.ignore ?? [],
    maxFileSize: s.max_file_size ?? SNAPSHOT_DEFAULTS.maxFileSize,
    maxFiles: s.max_files ?? SNAPSHOT_DEFAULTS.maxFiles,
    maxSize: s.max_size ?? SNAPSHOT_DEFAULTS.maxSize,
  }
}
