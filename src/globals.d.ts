// Tool and prompt descriptions live in .txt files next to their code; the bundler and
// the test runner both load them as strings.
declare module "*.txt" {
  const text: string
  export default text
}

// Set by the bundler from package.json; absent when running from source.
declare const __WRIGHT_VERSION__: string | undefined
