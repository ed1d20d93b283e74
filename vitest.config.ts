import { readFileSync } from "node:fs"
import { defineConfig } from "vitest/config"

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"))

export default defineConfig({
  plugins: [
    {
      name: "txt-as-string",
      transform(_code, id) {
        if (!id.endsWith(".txt")) return null
        return { code: `export default ${JSON.stringify(readFileSync(id, "utf8"))}`, map: null }
      },
    },
  ],
  define: { __WRIGHT_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // No test may install a language server by accident; the download test passes its own env.
    env: { WRIGHT_DISABLE_LSP_DOWNLOAD: "1" },
  },
})
