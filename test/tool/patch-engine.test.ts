import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { commitPatch, parsePatch, planPatch } from "../../src/tool/patch/engine"

let dir: string

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "wright-patch-"))
})
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
  fs.writeFileSync(path.join(dir, rel), text)
}
function read(rel: string): string {
  return fs.readFileSync(path.join(dir, rel), "utf8")
}
function exists(rel: string): boolean {
  return fs.existsSync(path.join(dir, rel))
}
/** Every file under dir with its content: proves "nothing on disk changed". */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {}
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const abs = path.join(dir, f)
    if (fs.statSync(abs).isFile()) out[f] = fs.readFileSync(abs, "utf8")
  }
  return out
}
async function apply(patch: string): Promise<void> {
  await commitPatch(await planPatch(parsePatch(patch), dir))
}
function patchOf(...body: string[]): string {
  return ["*** Begin Patch", ...body, "*** End Patch"].join("\n")
}
async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as Error).message
  }
  throw new Error("expected a rejection")
}

const py = ["class Cart:", "    def total(self):", "        return sum(self.items)", "", "    def count(self):", "        return len(self.items)", ""].join("\n")

describe("patch engine - parse", () => {
  test("patch engine - parses add, delete, update with move, anchors and end of file", () => {
    const ops = parsePatch(
      patchOf("*** Add File: a.txt", "+one", "+", "+three", "*** Delete File: b.txt", "*** Update File: c.py", "*** Move to: d.py", "@@ class Cart:", "@@ def total(self):", "-        return 1", "+        return 2", "*** End of File"),
    )
    expect(ops).toEqual([
      { type: "add", path: "a.txt", content: "one\n\nthree\n" },
      { type: "delete", path: "b.txt" },
      {
        type: "update",
        path: "c.py",
        moveTo: "d.py",
        chunks: [{ context: ["class Cart:", "def total(self):"], lines: [{ op: "-", text: "        return 1" }, { op: "+", text: "        return 2" }], endOfFile: true, line: 9 }],
      },
    ])
  })

  test("patch engine - accepts heredoc and code-fence wrappers, CRLF and padded markers", () => {
    const inner = patchOf("*** Add File: x", "+y")
    expect(parsePatch(`<<'EOF'\n${inner}\nEOF\n`)).toEqual([{ type: "add", path: "x", content: "y\n" }])
    expect(parsePatch("```diff\n" + inner + "\n```")).toHaveLength(1)
    expect(parsePatch(`  *** Begin Patch  \r\n*** Add File:  x \r\n+y\r\n *** End Patch\r\n`)).toEqual([{ type: "add", path: "x", content: "y\n" }])
  })

  test("patch engine - a unified-diff hunk header keeps its trailing text as the anchor", () => {
    const [op] = parsePatch(patchOf("*** Update File: a", "@@ -10,3 +10,4 @@ def f():", " x", "+y"))
    expect(op).toMatchObject({ chunks: [{ context: ["def f():"] }] })
  })

  test("patch engine - malformed envelopes are rejected with the line and the fix", () => {
    expect(() => parsePatch("")).toThrow("patch rejected: empty patch")
    expect(() => parsePatch("*** Add File: x\n+y\n*** End Patch")).toThrow('patch rejected: line 1 must be "*** Begin Patch"')
    expect(() => parsePatch("*** Begin Patch\n*** Add File: x\n+y")).toThrow(/must end with a "\*\*\* End Patch" line; the last line \(3\)/)
    expect(() => parsePatch(patchOf())).toThrow("patch rejected: empty patch")
    expect(() => parsePatch(patchOf("*** Modify File: x"))).toThrow('line 2: unknown marker "*** Modify File: x"')
    expect(() => parsePatch(patchOf("hello"))).toThrow("line 2: expected a file section header")
    expect(() => parsePatch(patchOf("*** Add File:"))).toThrow("line 2: \"*** Add File:\" needs a file path")
    expect(() => parsePatch(patchOf("*** Add File: x", "no plus"))).toThrow("line 3: every line of \"*** Add File: x\" must start with '+'")
    expect(() => parsePatch(patchOf("*** Update File: x"))).toThrow('line 2: "*** Update File: x" has no hunks')
    expect(() => parsePatch(patchOf("*** Update File: x", "@@ a", "oops"))).toThrow("line 4: unexpected line \"oops\"")
    expect(() => parsePatch(patchOf("*** Update File: x", "@@", "*** End of File"))).toThrow("has no lines")
    expect(() => parsePatch(patchOf("*** Delete File: x", "+junk"))).toThrow("line 3: a \"*** Delete File\" section has no content")
  })
})

describe("patch engine - apply", () => {
  test("patch engine - add creates parent directories", async () => {
    await apply(patchOf("*** Add File: deep/new/dir/file.txt", "+hello", "+world"))
    expect(read("deep/new/dir/file.txt")).toBe("hello\nworld\n")
  })

  test("patch engine - update with an @@ anchor changes the hunk after the anchor", async () => {
    write("cart.py", py)
    await apply(patchOf("*** Update File: cart.py", "@@ def count(self):", "-        return len(self.items)", "+        return len(self.items or [])"))
    expect(read("cart.py")).toBe(py.replace("return len(self.items)", "return len(self.items or [])"))
  })

  test("patch engine - several hunks in one file apply in order", async () => {
    write("cart.py", py)
    await apply(
      patchOf("*** Update File: cart.py", "@@ class Cart:", "     def total(self):", "-        return sum(self.items)", "+        return sum(self.items, 0)", "@@", "     def count(self):", "-        return len(self.items)", "+        return 0"),
    )
    expect(read("cart.py")).toBe(py.replace("sum(self.items)", "sum(self.items, 0)").replace("len(self.items)", "0"))
  })

  test("patch engine - delete removes the file", async () => {
    write("gone.txt", "bye\n")
    await apply(patchOf("*** Delete File: gone.txt"))
    expect(exists("gone.txt")).toBe(false)
  })

  test("patch engine - move to a new directory with an edit", async () => {
    write("src/old.py", py)
    await apply(patchOf("*** Update File: src/old.py", "*** Move to: lib/cart/new.py", "@@ def total(self):", "-        return sum(self.items)", "+        return 0"))
    expect(exists("src/old.py")).toBe(false)
    expect(read("lib/cart/new.py")).toBe(py.replace("sum(self.items)", "0"))
  })

  test("patch engine - a pure rename keeps content and file mode", async () => {
    write("run.sh", "#!/bin/sh\necho hi\n")
    fs.chmodSync(path.join(dir, "run.sh"), 0o755)
    await apply(patchOf("*** Update File: run.sh", "*** Move to: bin/run.sh"))
    expect(read("bin/run.sh")).toBe("#!/bin/sh\necho hi\n")
    expect(fs.statSync(path.join(dir, "bin/run.sh")).mode & 0o777).toBe(0o755)
  })

  test("patch engine - context lines tolerate trailing then leading whitespace and keep the file's text", async () => {
    write("a.js", "function f() {   \n\tif (x) {\n\t\treturn 1;\n\t}\n}\n")
    await apply(patchOf("*** Update File: a.js", " function f() {", "     if (x) {", "-        return 1;", "+        return 2;", "     }"))
    expect(read("a.js")).toBe("function f() {   \n\tif (x) {\n\t\treturn 2;\n\t}\n}\n")
  })

  test("patch engine - typographic quotes in the file still match ASCII context", async () => {
    write("t.md", "Say “hello”.\nNext.\n")
    await apply(patchOf("*** Update File: t.md", ' Say "hello".', "-Next.", "+Then."))
    expect(read("t.md")).toBe("Say “hello”.\nThen.\n")
  })

  test("patch engine - End of File anchors the hunk at the end even when the lines repeat", async () => {
    write("l.txt", "end\nmiddle\nend\n")
    await apply(patchOf("*** Update File: l.txt", "@@", "-end", "+END", "*** End of File"))
    expect(read("l.txt")).toBe("end\nmiddle\nEND\n")
  })

  test("patch engine - the anchor line repeated as the first context line still matches", async () => {
    write("cart.py", py)
    await apply(patchOf("*** Update File: cart.py", "@@ def count(self):", "     def count(self):", "-        return len(self.items)", "+        return 0"))
    expect(read("cart.py")).toBe(py.replace("len(self.items)", "0"))
  })

  test("patch engine - two hunks may repeat the same anchor for one function", async () => {
    write("f.py", "def f():\n    a = 1\n    b = 2\n    c = 3\n")
    await apply(patchOf("*** Update File: f.py", "@@ def f():", "-    a = 1", "+    a = 10", "@@ def f():", "-    c = 3", "+    c = 30"))
    expect(read("f.py")).toBe("def f():\n    a = 10\n    b = 2\n    c = 30\n")
  })

  test("patch engine - a shortened anchor matches the start of a line, on a word boundary", async () => {
    write("c.py", "def totals(self):\n    return 1\ndef total(self):\n    return 1\n")
    await apply(patchOf("*** Update File: c.py", "@@ def total", "-    return 1", "+    return 2"))
    expect(read("c.py")).toBe("def totals(self):\n    return 1\ndef total(self):\n    return 2\n")
  })

  test("patch engine - pure additions go after the anchor, or at the end without one", async () => {
    write("a.txt", "one\ntwo\n")
    await apply(patchOf("*** Update File: a.txt", "@@ one", "+one and a half"))
    expect(read("a.txt")).toBe("one\none and a half\ntwo\n")
    await apply(patchOf("*** Update File: a.txt", "@@", "+three"))
    expect(read("a.txt")).toBe("one\none and a half\ntwo\nthree\n")
  })

  test("patch engine - CRLF, BOM and a missing final newline are preserved", async () => {
    write("w.txt", "\uFEFFa\r\nb\r\nc")
    await apply(patchOf("*** Update File: w.txt", " a", "-b", "+B", "+B2", " c"))
    expect(read("w.txt")).toBe("\uFEFFa\r\nB\r\nB2\r\nc")
  })

  test("patch engine - two sections on one file and delete-then-move-onto compose in order", async () => {
    write("x.txt", "1\n2\n")
    write("y.txt", "old y\n")
    await apply(patchOf("*** Update File: x.txt", "-1", "+one", "*** Update File: x.txt", "-2", "+two", "*** Delete File: y.txt", "*** Update File: x.txt", "*** Move to: y.txt"))
    expect(exists("x.txt")).toBe(false)
    expect(read("y.txt")).toBe("one\ntwo\n")
  })
})

describe("patch engine - verification", () => {
  test("patch engine - one failing hunk rejects the whole patch and nothing on disk changes", async () => {
    write("cart.py", py)
    write("keep.txt", "keep\n")
    const before = snapshot()
    const msg = await rejection(
      apply(patchOf("*** Add File: new/file.txt", "+x", "*** Delete File: keep.txt", "*** Update File: cart.py", "@@ def total(self):", "-        return 1", "+        return 2")),
    )
    expect(msg).toContain("apply_patch verification failed: cart.py: hunk 1 (patch line 6) does not match the file")
    expect(msg).toContain("        return 1")
    expect(snapshot()).toEqual(before)
    expect(exists("new")).toBe(false)
  })

  test("patch engine - a missing anchor is named", async () => {
    write("cart.py", py)
    const msg = await rejection(apply(patchOf("*** Update File: cart.py", "@@ def nope(self):", "-x", "+y")))
    expect(msg).toContain('has the anchor "@@ def nope(self):"')
  })

  test("patch engine - update or delete of a missing file is refused", async () => {
    write("a.txt", "a\n")
    expect(await rejection(apply(patchOf("*** Update File: nope.txt", "-a", "+b")))).toContain("cannot update nope.txt: the file does not exist")
    expect(await rejection(apply(patchOf("*** Delete File: nope.txt")))).toContain("cannot delete nope.txt")
    expect(snapshot()).toEqual({ "a.txt": "a\n" })
  })

  test("patch engine - a move onto an existing file replaces it, as Add File does (and as Codex and OpenCode move)", async () => {
    write("a.txt", "a\n")
    write("b.txt", "b\n")
    fs.chmodSync(path.join(dir, "a.txt"), 0o750)
    await apply(patchOf("*** Update File: a.txt", "*** Move to: b.txt", "-a", "+moved"))
    expect(snapshot()).toEqual({ "b.txt": "moved\n" })
    expect(fs.statSync(path.join(dir, "b.txt")).mode & 0o777).toBe(0o750)
  })

  test("patch engine - a move onto a directory is refused, nothing changes", async () => {
    write("a.txt", "a\n")
    write("d/inside.txt", "x\n")
    expect(await rejection(apply(patchOf("*** Update File: a.txt", "*** Move to: d", "-a", "+b")))).toContain("d is a directory")
    expect(snapshot()).toEqual({ "a.txt": "a\n", [path.join("d", "inside.txt")]: "x\n" })
  })

  test("patch engine - the file a move would replace changed after planning: the commit stops before any write", async () => {
    write("a.txt", "a\n")
    write("b.txt", "b\n")
    const plan = await planPatch(parsePatch(patchOf("*** Update File: a.txt", "*** Move to: b.txt", "-a", "+A")), dir)
    write("b.txt", "someone else\n")
    expect(await rejection(commitPatch(plan))).toContain("b.txt changed on disk")
    expect(snapshot()).toEqual({ "a.txt": "a\n", "b.txt": "someone else\n" })
  })

  test("patch engine - a move onto an existing file that fails mid-commit restores both files", async () => {
    write("a.txt", "a\n")
    write("b.txt", "b\n")
    const plan = await planPatch(parsePatch(patchOf("*** Update File: a.txt", "*** Move to: b.txt", "-a", "+A", "*** Add File: c.txt", "+c")), dir)
    let renames = 0
    const failing = async (from: string, to: string) => {
      if (++renames === 4) throw new Error("EIO: i/o error")
      fs.renameSync(from, to)
    }
    expect(await rejection(commitPatch(plan, { rename: failing }))).toContain("every file was restored: EIO")
    expect(snapshot()).toEqual({ "a.txt": "a\n", "b.txt": "b\n" })
  })

  test("patch engine - a first hunk that fits two places is refused", async () => {
    write("dup.txt", "x = 1\ny\nx = 1\n")
    const msg = await rejection(apply(patchOf("*** Update File: dup.txt", "-x = 1", "+x = 2")))
    expect(msg).toContain("matches 2 places in the file (at lines 1, 3)")
    expect(read("dup.txt")).toBe("x = 1\ny\nx = 1\n")
  })

  test("patch engine - an anchor that repeats is fine when it leads to one place", async () => {
    write("c.py", "def a():\n    pass\ndef a():\n    return 5\n")
    await apply(patchOf("*** Update File: c.py", "@@ def a():", "-    return 5", "+    return 6"))
    expect(read("c.py")).toBe("def a():\n    pass\ndef a():\n    return 6\n")
  })

  test("patch engine - binary files are refused", async () => {
    fs.writeFileSync(path.join(dir, "img.bin"), Buffer.from([0x89, 0x50, 0x00, 0xff]))
    expect(await rejection(apply(patchOf("*** Update File: img.bin", "-a", "+b")))).toContain("not a UTF-8 text file")
  })

  test("patch engine - a file changed after planning stops the commit before any write", async () => {
    write("a.txt", "a\n")
    write("b.txt", "b\n")
    const plan = await planPatch(parsePatch(patchOf("*** Update File: a.txt", "-a", "+A", "*** Update File: b.txt", "-b", "+B")), dir)
    write("b.txt", "changed\n")
    expect(await rejection(commitPatch(plan))).toContain("b.txt changed on disk")
    expect(read("a.txt")).toBe("a\n")
  })

  test("patch engine - a write failure mid-commit restores every file already swapped", async () => {
    write("a.txt", "a\n")
    write("b.txt", "b\n")
    const plan = await planPatch(parsePatch(patchOf("*** Update File: a.txt", "-a", "+A", "*** Delete File: b.txt", "*** Add File: c/new.txt", "+c")), dir)
    let renames = 0
    // The disk fills up after a.txt and b.txt were swapped: the third rename fails.
    const failing = async (from: string, to: string) => {
      if (++renames === 4) throw new Error("ENOSPC: no space left on device")
      fs.renameSync(from, to)
    }
    const msg = await rejection(commitPatch(plan, { rename: failing }))
    expect(msg).toContain("every file was restored: ENOSPC")
    expect(snapshot()).toEqual({ "a.txt": "a\n", "b.txt": "b\n" })
    expect(exists("c")).toBe(false)
  })

})
