import { lines, snip, type EditCase } from "../case"

const cfg = lines(
  "def build_config(env):",
  "    config = {}",
  '    config["debug"] = env == "dev"',
  '    config["timeout"] = 60',
  '    config["retries"] = 5',
  "    return config",
)

const component = lines(
  "export function Button({ label, onClick }: Props) {",
  "  const [busy, setBusy] = useState(false)",
  "  const theme = useTheme()",
  "  return (",
  "    <button disabled={busy} onClick={onClick}>",
  "      {label}",
  "    </button>",
  "  )",
  "}",
)

export const cases: EditCase[] = [
  {
    name: "stale: a context line changed since the read keeps its current value",
    file: cfg,
    oldString: snip("    config = {}", '    config["debug"] = env == "dev"', '    config["timeout"] = 30', '    config["retries"] = 3', "    return config"),
    newString: snip("    config = {}", '    config["debug"] = env == "dev"', '    config["timeout"] = 30', '    config["retries"] = 10', "    return config"),
    expect: { text: cfg.replace('config["retries"] = 5', 'config["retries"] = 10') },
  },
  {
    name: "stale: the model rewrites the stale line itself",
    file: cfg,
    oldString: snip("def build_config(env):", "    config = {}", '    config["debug"] = env == "development"', '    config["timeout"] = 60'),
    newString: snip("def build_config(env):", "    config = {}", '    config["debug"] = env in ("dev", "development")', '    config["timeout"] = 60'),
    expect: { text: cfg.replace('config["debug"] = env == "dev"', 'config["debug"] = env in ("dev", "development")') },
  },
  {
    name: "stale: a line added to the file since the read is kept",
    file: component,
    oldString: snip(
      "export function Button({ label, onClick }: Props) {",
      "  const [busy, setBusy] = useState(false)",
      "  return (",
      "    <button disabled={busy} onClick={onClick}>",
      "      {label}",
    ),
    newString: snip(
      "export function Button({ label, onClick }: Props) {",
      "  const [busy, setBusy] = useState(false)",
      "  return (",
      '    <button disabled={busy} onClick={onClick} type="button">',
      "      {label}",
    ),
    expect: { text: component.replace("onClick={onClick}>", 'onClick={onClick} type="button">') },
  },
  {
    name: "stale: a line removed from the file since the read stays removed",
    file: component.replace("  const theme = useTheme()\n", ""),
    oldString: snip(
      "  const [busy, setBusy] = useState(false)",
      "  const theme = useTheme()",
      "  return (",
      "    <button disabled={busy} onClick={onClick}>",
      "      {label}",
      "    </button>",
    ),
    newString: snip(
      "  const [busy, setBusy] = useState(false)",
      "  const theme = useTheme()",
      "  return (",
      "    <button disabled={busy} onClick={onClick}>",
      "      <span>{label}</span>",
      "    </button>",
    ),
    expect: { text: component.replace("  const theme = useTheme()\n", "").replace("      {label}", "      <span>{label}</span>") },
  },
  {
    name: "stale: stale middle line plus wrong indentation",
    file: cfg,
    oldString: snip('config["debug"] = env == "dev"', 'config["timeout"] = 45', 'config["retries"] = 5', "return config"),
    newString: snip('config["debug"] = env == "dev"', 'config["timeout"] = 45', 'config["retries"] = 5', 'config["verbose"] = False', "return config"),
    expect: { text: cfg.replace('    config["retries"] = 5\n', '    config["retries"] = 5\n    config["verbose"] = False\n') },
  },
  {
    name: "stale: half the middle rewritten by someone else (context-aware)",
    file: lines("<ul>", "  <li>Home</li>", '  <li class="active"><a href="/docs/getting-started">Documentation</a></li>', "</ul>"),
    oldString: snip("<ul>", "  <li>Home</li>", "  <li>Docs</li>", "</ul>"),
    newString: snip("<ul>", "  <li>Home</li>", "  <li>Docs</li>", "  <li>Blog</li>", "</ul>"),
    expect: { text: lines("<ul>", "  <li>Home</li>", '  <li class="active"><a href="/docs/getting-started">Documentation</a></li>', "  <li>Blog</li>", "</ul>") },
  },
]
