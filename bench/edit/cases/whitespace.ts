import { lines, snip, type EditCase } from "../case"

const py = lines(
  "class Inventory:",
  "    def __init__(self):",
  "        self.items = {}",
  "",
  "    def add(self, name, qty=1):",
  "        if qty <= 0:",
  '            raise ValueError("qty must be positive")',
  "        self.items[name] = self.items.get(name, 0) + qty",
  "",
  "    def remove(self, name):",
  "        del self.items[name]",
)

const go = lines(
  "func handle(w http.ResponseWriter, r *http.Request) {",
  "\tif r.Method != http.MethodPost {",
  "\t\thttp.Error(w, \"method not allowed\", 405)",
  "\t\treturn",
  "\t}",
  "\tprocess(r)",
  "}",
)

const trailing = lines("SELECT id,   ", "       name ", "FROM users\t", "WHERE active = 1;")

export const cases: EditCase[] = [
  {
    name: "whitespace: method copied without its class indentation",
    file: py,
    oldString: snip("def remove(self, name):", "    del self.items[name]"),
    newString: snip("def remove(self, name):", "    self.items.pop(name, None)"),
    expect: { text: py.replace("        del self.items[name]", "        self.items.pop(name, None)") },
  },
  {
    name: "whitespace: block indented one level too deep",
    file: py,
    oldString: snip("            if qty <= 0:", '                raise ValueError("qty must be positive")'),
    newString: snip("            if qty <= 0:", '                raise ValueError(f"qty must be positive, got {qty}")'),
    expect: { text: py.replace('raise ValueError("qty must be positive")', 'raise ValueError(f"qty must be positive, got {qty}")') },
  },
  {
    name: "whitespace: nested block flattened to column 0",
    file: py,
    oldString: snip("def add(self, name, qty=1):", "if qty <= 0:", 'raise ValueError("qty must be positive")', "self.items[name] = self.items.get(name, 0) + qty"),
    newString: snip("def add(self, name, qty=1):", "if qty <= 0:", 'raise ValueError("qty must be positive")', "self.items[name] = self.items.get(name, 0) + qty", "return self.items[name]"),
    expect: { text: py.replace("+ qty\n", "+ qty\n        return self.items[name]\n") },
  },
  {
    name: "whitespace: spaces in oldString, tabs in the Go file",
    file: go,
    oldString: snip("    if r.Method != http.MethodPost {", '        http.Error(w, "method not allowed", 405)', "        return", "    }"),
    newString: snip("    if r.Method != http.MethodPost {", '        http.Error(w, "method not allowed", http.StatusMethodNotAllowed)', "        return", "    }"),
    expect: { text: go.replace("405)", "http.StatusMethodNotAllowed)") },
  },
  {
    name: "whitespace: tabs in oldString, spaces in the file",
    file: py,
    oldString: snip("\tdef __init__(self):", "\t\tself.items = {}"),
    newString: snip("\tdef __init__(self):", "\t\tself.items = {}", "\t\tself.log = []"),
    expect: { text: py.replace("        self.items = {}\n", "        self.items = {}\n        self.log = []\n") },
  },
  {
    name: "whitespace: 2-space oldString against a 4-space file",
    file: py,
    oldString: snip("  def remove(self, name):", "    del self.items[name]"),
    newString: snip("  def remove(self, name):", "    if name in self.items:", "      del self.items[name]"),
    expect: { text: py.replace("        del self.items[name]", "        if name in self.items:\n            del self.items[name]") },
  },
  {
    name: "whitespace: first line copied without indentation, rest exact",
    file: py,
    oldString: snip("if qty <= 0:", '            raise ValueError("qty must be positive")'),
    newString: snip("if qty < 0:", '            raise ValueError("qty must be positive")'),
    expect: { text: py.replace("if qty <= 0:", "if qty < 0:") },
  },
  {
    name: "whitespace: trailing spaces and tabs in the file, none in oldString",
    file: trailing,
    oldString: snip("SELECT id,", "       name", "FROM users"),
    newString: snip("SELECT id,", "       name,", "       email", "FROM users"),
    // Lines the model left alone keep the file's own trailing whitespace.
    expect: { text: lines("SELECT id,   ", "       name,", "       email", "FROM users\t", "WHERE active = 1;") },
  },
  {
    name: "whitespace: trailing spaces in oldString that the file lacks",
    file: py,
    oldString: snip("    def remove(self, name):  ", "        del self.items[name]  "),
    newString: snip("    def remove(self, name):", "        self.items.pop(name)"),
    expect: { text: py.replace("        del self.items[name]", "        self.items.pop(name)") },
  },
  {
    name: "whitespace: whitespace-only blank line in the file, empty in oldString",
    file: lines("def a():", "    return 1", "    ", "def b():", "    return 2"),
    oldString: snip("    return 1", "", "def b():"),
    newString: snip("    return 1", "", "", "def b():"),
    expect: { text: lines("def a():", "    return 1", "    ", "", "def b():", "    return 2") },
  },
  {
    name: "whitespace: different spacing inside the line",
    file: lines("const point = { x: 1, y: 2 }", "draw(point.x,point.y)"),
    oldString: "draw(point.x, point.y)",
    newString: "draw(point.x, point.y, color)",
    expect: { text: lines("const point = { x: 1, y: 2 }", "draw(point.x, point.y, color)") },
  },
  {
    name: "whitespace: blank lines around oldString that are not in the file",
    file: lines("a()", "b()", "c()"),
    oldString: "\nb()\n\n",
    newString: "\nb2()\n\n",
    expect: { text: lines("a()", "b2()", "c()") },
  },
]
