import { randomInt } from "node:crypto"

const ADJECTIVES = [
  "amber", "brave", "calm", "clever", "crisp", "eager", "gentle", "glad", "golden", "happy", "keen", "kind",
  "lively", "lucky", "mellow", "misty", "nimble", "noble", "polite", "proud", "quick", "quiet", "rapid", "silent",
  "silver", "steady", "sunny", "swift", "tidy", "vivid", "witty", "young",
]
const NOUNS = [
  "anchor", "badger", "beacon", "canyon", "cedar", "comet", "falcon", "forest", "harbor", "island", "knight", "lagoon",
  "lantern", "maple", "meadow", "otter", "panda", "pebble", "pine", "planet", "raven", "river", "rocket", "sparrow",
  "summit", "thunder", "tiger", "valley", "willow", "wizard", "wolf", "zephyr",
]

/** Two random words, e.g. `quick-knight`: a human handle for a session. */
export function slug(): string {
  return `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}`
}
