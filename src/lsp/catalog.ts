// The built-in language servers: OpenCode's list and the common ones it leaves out (JSON, CSS,
// HTML). Each is used where its binary is found (PATH; the project's node_modules/.bin only in a
// trusted folder) or, for those that name one, installed on demand by a package manager into
// wright's cache. Nothing here downloads a prebuilt archive: a server only shipped that way
// must already be on PATH.
export interface ServerDef {
  id: string
  extensions: string[]
  /** Files or folders whose presence marks a project root; empty: the project directory. */
  markers: string[]
  /** The command, argv[0] a bare name to look up or an absolute path. */
  command: string[]
  env?: Record<string, string>
  initialization?: Record<string, unknown>
  /**
   * npm packages that provide `command[0]` as a bin, installed into the cache when the binary
   * is found nowhere else (built-ins only; see manager.ts). Pinned: each set of versions gets
   * its own cache folder, installed once, and a new wright release with new pins installs anew.
   */
  npm?: string[]
  /** A Go module (`path@version`) that `go install` builds into the cache when `go` is on PATH. */
  go?: string
  /** Python packages (pinned) that pip installs into a virtual environment in the cache. */
  pip?: string[]
  /** A rustup component (`rustup component add`) when rustup is on PATH. */
  rustup?: string
  /** Runs only where one of `markers` is found (a Deno or Biome project), not in every project. */
  strict?: boolean
  /** Not where one of these markers is found on the way up (TypeScript gives way to Deno). */
  exclude?: string[]
  /** How diagnostics are asked for when the server's pushes cannot be trusted (see client.ts). */
  pull?: "tsserver"
  /**
   * typescript-language-server: in an untrusted folder it is handed the TypeScript installed
   * beside it (`tsserver.path`), never the workspace's (manager.ts).
   */
  ownTypescript?: boolean
  builtin: boolean
}


const JS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"]
const LOCKS = ["package-lock.json", "bun.lockb", "bun.lock", "pnpm-lock.yaml", "yarn.lock"]
const DOTNET = ["*.slnx", "*.sln", "global.json"]
const GRADLE = ["settings.gradle.kts", "settings.gradle", "gradlew", "build.gradle.kts", "build.gradle", "pom.xml"]

export const BUILTIN_SERVERS: Omit<ServerDef, "builtin">[] = [
  {
    id: "typescript",
    extensions: JS,
    markers: [...LOCKS, "tsconfig.json", "jsconfig.json", "package.json"],
    exclude: ["deno.json", "deno.jsonc"],
    command: ["typescript-language-server", "--stdio"],
    npm: ["typescript-language-server@5.3.0", "typescript@5.9.3"],
    pull: "tsserver",
    ownTypescript: true,
    // One tsserver, not a syntax server beside the semantic one (two parsing the same libs on a
    // busy machine doubled a cold start); no typings downloads; node_modules is not watched (see
    // client.ts: tsserver walked every folder under it before it answered).
    initialization: { tsserver: { useSyntaxServer: "never" }, disableAutomaticTypingAcquisition: true },
  },
  { id: "deno", extensions: [".ts", ".tsx", ".js", ".jsx", ".mjs"], markers: ["deno.json", "deno.jsonc"], strict: true, command: ["deno", "lsp"] },
  { id: "vue", extensions: [".vue"], markers: LOCKS, command: ["vue-language-server", "--stdio"], npm: ["@vue/language-server@3.3.11"] },
  { id: "svelte", extensions: [".svelte"], markers: LOCKS, command: ["svelteserver", "--stdio"], npm: ["svelte-language-server@0.18.4"] },
  { id: "astro", extensions: [".astro"], markers: LOCKS, command: ["astro-ls", "--stdio"], npm: ["@astrojs/language-server@2.17.3"] },
  // Linters with a language server: only in projects that configure them.
  { id: "oxlint", extensions: [...JS, ".vue", ".astro", ".svelte"], markers: [".oxlintrc.json"], strict: true, command: ["oxlint", "--lsp"] },
  {
    id: "biome",
    extensions: [...JS, ".json", ".jsonc", ".vue", ".astro", ".svelte", ".css", ".graphql", ".gql", ".html"],
    markers: ["biome.json", "biome.jsonc", ".biome.json", ".biome.jsonc"],
    strict: true,
    command: ["biome", "lsp-proxy", "--stdio"],
  },
  {
    id: "json", extensions: [".json", ".jsonc"], markers: [], command: ["vscode-json-language-server", "--stdio"], npm: ["vscode-langservers-extracted@4.10.0"],
    // Sent as the settings too (client.ts): a settings push without `json.validate` turns validation off.
    initialization: { provideFormatter: false, json: { validate: { enable: true } } },
  },
  { id: "css", extensions: [".css", ".scss", ".less"], markers: LOCKS, command: ["vscode-css-language-server", "--stdio"], npm: ["vscode-langservers-extracted@4.10.0"], initialization: { provideFormatter: false } },
  { id: "html", extensions: [".html", ".htm"], markers: LOCKS, command: ["vscode-html-language-server", "--stdio"], npm: ["vscode-langservers-extracted@4.10.0"], initialization: { provideFormatter: false } },
  { id: "yaml", extensions: [".yaml", ".yml"], markers: LOCKS, command: ["yaml-language-server", "--stdio"], npm: ["yaml-language-server@1.25.0"] },
  {
    id: "pyright",
    extensions: [".py", ".pyi"],
    markers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "pyrightconfig.json"],
    command: ["pyright-langserver", "--stdio"],
    npm: ["pyright@1.1.414"],
  },
  { id: "ruff", extensions: [".py", ".pyi"], markers: ["ruff.toml", ".ruff.toml"], strict: true, command: ["ruff", "server"], pip: ["ruff==0.14.10"] },
  { id: "gopls", extensions: [".go"], markers: ["go.work", "go.mod", "go.sum"], command: ["gopls"], go: "golang.org/x/tools/gopls@v0.20.0" },
  { id: "rust", extensions: [".rs"], markers: ["Cargo.toml", "Cargo.lock"], command: ["rust-analyzer"], rustup: "rust-analyzer" },
  {
    id: "clangd",
    extensions: [".c", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++"],
    markers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"],
    command: ["clangd", "--background-index", "--clang-tidy"],
  },
  { id: "bash", extensions: [".sh", ".bash", ".zsh", ".ksh"], markers: [], command: ["bash-language-server", "start"], npm: ["bash-language-server@5.8.1"] },
  { id: "ruby-lsp", extensions: [".rb", ".rake", ".gemspec", ".ru"], markers: ["Gemfile"], command: ["rubocop", "--lsp"] },
  { id: "php", extensions: [".php"], markers: ["composer.json", "composer.lock", ".php-version"], command: ["intelephense", "--stdio"], npm: ["intelephense@1.18.5"], initialization: { telemetry: { enabled: false } } },
  { id: "lua-ls", extensions: [".lua"], markers: [".luarc.json", ".luarc.jsonc", ".luacheckrc", ".stylua.toml", "stylua.toml", "selene.toml", "selene.yml"], command: ["lua-language-server"] },
  { id: "dockerfile", extensions: [".dockerfile", "Dockerfile", "Containerfile"], markers: [], command: ["docker-langserver", "--stdio"], npm: ["dockerfile-language-server-nodejs@0.15.0"] },
  { id: "terraform", extensions: [".tf", ".tfvars"], markers: [".terraform.lock.hcl", "terraform.tfstate"], command: ["terraform-ls", "serve"] },
  { id: "prisma", extensions: [".prisma"], markers: ["schema.prisma"], command: ["prisma", "language-server"] },
  { id: "elixir-ls", extensions: [".ex", ".exs"], markers: ["mix.exs", "mix.lock"], command: ["elixir-ls"] },
  { id: "zls", extensions: [".zig", ".zon"], markers: ["build.zig"], command: ["zls"] },
  { id: "csharp", extensions: [".cs", ".csx"], markers: [...DOTNET, "*.csproj"], command: ["roslyn-language-server", "--stdio", "--autoLoadProjects"] },
  { id: "fsharp", extensions: [".fs", ".fsi", ".fsx", ".fsscript"], markers: [...DOTNET, "*.fsproj"], command: ["fsautocomplete"] },
  { id: "sourcekit-lsp", extensions: [".swift"], markers: ["Package.swift"], command: ["sourcekit-lsp"] },
  { id: "jdtls", extensions: [".java"], markers: [...GRADLE, ".project", ".classpath"], command: ["jdtls"] },
  { id: "kotlin-ls", extensions: [".kt", ".kts"], markers: GRADLE, command: ["kotlin-lsp", "--stdio"] },
  { id: "dart", extensions: [".dart"], markers: ["pubspec.yaml", "analysis_options.yaml"], command: ["dart", "language-server", "--lsp"] },
  { id: "ocaml-lsp", extensions: [".ml", ".mli"], markers: ["dune-project", "dune-workspace", ".merlin", "opam"], command: ["ocamllsp"] },
  { id: "haskell-language-server", extensions: [".hs", ".lhs"], markers: ["stack.yaml", "cabal.project", "hie.yaml", "*.cabal"], command: ["haskell-language-server-wrapper", "--lsp"] },
  { id: "gleam", extensions: [".gleam"], markers: ["gleam.toml"], command: ["gleam", "lsp"] },
  { id: "clojure-lsp", extensions: [".clj", ".cljs", ".cljc", ".edn"], markers: ["deps.edn", "project.clj", "shadow-cljs.edn", "bb.edn", "build.boot"], command: ["clojure-lsp", "listen"] },
  { id: "nixd", extensions: [".nix"], markers: ["flake.nix"], command: ["nixd"] },
  { id: "texlab", extensions: [".tex", ".bib"], markers: [".latexmkrc", "latexmkrc", ".texlabroot", "texlabroot"], command: ["texlab"] },
  { id: "tinymist", extensions: [".typ", ".typc"], markers: ["typst.toml"], command: ["tinymist"] },
  { id: "julials", extensions: [".jl"], markers: ["Project.toml", "Manifest.toml"], command: ["julia", "--startup-file=no", "--history-file=no", "-e", "using LanguageServer; runserver()"] },
]

/** LSP language ids by extension (or file name); others use the extension without its dot. */
export const LANGUAGE_IDS: Record<string, string> = {
  ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
  ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
  ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c",
  ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".h++": "cpp",
  ".sh": "shellscript", ".bash": "shellscript", ".zsh": "shellscript", ".ksh": "shellscript",
  ".yml": "yaml", ".htm": "html", ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
  ".ex": "elixir", ".exs": "elixir", ".cs": "csharp", ".csx": "csharp", ".fs": "fsharp", ".fsi": "fsharp", ".fsx": "fsharp",
  ".kt": "kotlin", ".kts": "kotlin", ".ml": "ocaml", ".mli": "ocaml", ".hs": "haskell", ".lhs": "haskell",
  ".clj": "clojure", ".cljs": "clojure", ".cljc": "clojure", ".edn": "clojure", ".tf": "terraform", ".tfvars": "terraform-vars",
  ".tex": "latex", ".bib": "bibtex", ".typ": "typst", ".jl": "julia", ".jsonc": "jsonc", ".dockerfile": "dockerfile",
  dockerfile: "dockerfile", containerfile: "dockerfile",
}
