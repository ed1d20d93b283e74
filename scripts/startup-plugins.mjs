// esbuild plugins that keep work out of wright's start-up without changing what the bundled
// packages do. Each one rewrites one known statement of one package; when a package update
// changes that statement, the build fails here instead of silently losing the saving.
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * Replaces each `[from, to]` in every module whose path matches `filter`; fails the build when
 * a `from` is missing. A pair with a third element `when` applies only where the source
 * contains `when` (one rewrite serves two versions of a package).
 */
function rewrite(name, filter, ...pairs) {
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, async (args) => {
        let source = await readFile(args.path, "utf8")
        for (const [from, to, when] of pairs) {
          if (when !== undefined && !source.includes(when)) continue
          if (!source.includes(from)) throw new Error(`${name}: ${args.path} no longer contains ${JSON.stringify(from)}; update scripts/startup-plugins.mjs`)
          source = source.replace(from, to)
        }
        return { contents: source, loader: "js" }
      })
    },
  }
}

/**
 * zod's namespaces re-export all of its ~60 message locales (`z.locales`): 369 KB, half of
 * zod's code, compiled on every start. wright only ever speaks English (zod configures `en`
 * itself at import), so `z.locales` holds `en` alone in the bundle.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)) return undefined
      return { path: path.join(args.resolveDir, "../locales/en.js"), namespace: "zod-locales" }
    })
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)}\n`,
      resolveDir: path.dirname(args.path),
      loader: "js",
    }))
  },
}

/**
 * The AI SDK's provider-utils imports zod 3 for one string enum (`ZodFirstPartyTypeKind`, to
 * convert zod 3 schemas to JSON Schema), and with it the whole of zod 3: 116 KB compiled on
 * every start. The enum is generated here from zod 3 itself (every value is its own name), so
 * the conversion compares the very same strings.
 */
const zod3EnumOnly = {
  name: "zod3-enum-only",
  setup(build) {
    build.onResolve({ filter: /^zod\/v3$/ }, (args) => {
      if (!/[\\/]@ai-sdk[\\/]provider-utils[\\/]/.test(args.importer)) return undefined
      return { path: args.importer, namespace: "zod3-enum" }
    })
    build.onLoad({ filter: /.*/, namespace: "zod3-enum" }, async (args) => {
      const zod3 = await import(pathToFileURL(createRequire(args.path).resolve("zod/v3")).href)
      const kinds = zod3.ZodFirstPartyTypeKind
      if (!kinds || Object.entries(kinds).some(([k, v]) => k !== v)) throw new Error("zod3-enum-only: zod/v3's ZodFirstPartyTypeKind changed shape; update scripts/startup-plugins.mjs")
      return { contents: `export const ZodFirstPartyTypeKind = ${JSON.stringify(kinds)}\n`, loader: "js" }
    })
  },
}

export const startupPlugins = [
  zodEnglishOnly,
  zod3EnumOnly,
  // string-width (yargs' help layout, ink) creates an Intl.Segmenter at import: ICU's break
  // iterator, 13–23 ms of CPU here, paid by every command although only help text and the TUI
  // ever measure a non-ASCII string. Created on the first segment() call instead. Its newer
  // version also builds /^\p{RGI_Emoji}$/v at import: 38 ms here (V8 expands the emoji
  // sequence set as it parses the pattern, and again as its first test compiles it: 60–100 ms
  // in a fresh process), made on first use instead. The TUI measures non-ASCII text (borders,
  // arrows) in its first frame, so the pattern is not even made for a cluster that holds no
  // Emoji_Presentation code point and no U+FE0F: every RGI emoji has one of them (basic emoji,
  // keycaps and presentation sequences carry U+FE0F; flags, skin tones and tag sequences are
  // made of Emoji_Presentation characters; checked against every single code point, with
  // U+FE0F, a skin tone or a ZWJ sign after it), and the check costs 0.1 ms to make.
  rewrite(
    "lazy-string-width",
    /[\\/]string-width[\\/]index\.js$/,
    ["const segmenter = new Intl.Segmenter();", "let segmenterInstance;\nconst segmenter = { segment: (text) => (segmenterInstance ??= new Intl.Segmenter()).segment(text) };"],
    [
      "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;",
      "let rgiEmojiInstance;\nconst mayBeEmoji = /[\\p{Emoji_Presentation}\\uFE0F]/u;\nconst rgiEmojiRegex = { test: (text) => mayBeEmoji.test(text) && (rgiEmojiInstance ??= new RegExp(\"^\\\\p{RGI_Emoji}$\", \"v\")).test(text) };",
      "const rgiEmojiRegex",
    ],
  ),
  // Every yargs instance guesses a default version as it is made: it lists each folder from
  // the working directory up to / looking for a package.json (the user's project's, since a
  // bundle has no node_modules path to start from) and parses it. wright always sets its own
  // version, so the guess is skipped: `--version` is the explicit one either way.
  rewrite("yargs-no-version-guess", /[\\/]yargs[\\/]build[\\/]lib[\\/]yargs-factory\.js$/, ["yargs.version();", "yargs.version(false);"]),
]
