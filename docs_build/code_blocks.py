"""The code blocks of a Markdown page, as the docs tests run them.

A fenced block whose language is `python` runs, in page order, in one
namespace per page. A block that is not meant to run says so on the line
before its fence:

    <!-- not run: a fragment of a function shown above -->

A python block followed by a line `prints` (or `prints:`, `Output:`) and
then a fenced block has its standard output compared with that block's
text; `...` there matches any text (doctest's ELLIPSIS), for what differs
from machine to machine (paths, the memory budget)."""
import dataclasses
import re

NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<why>.+?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)[^`]*$")
OUTPUT_LEAD = re.compile(r"^\s*(prints|output):?\s*$", re.IGNORECASE)


@dataclasses.dataclass
class Block:
    language: str
    text: str
    line: int  # of the opening fence, 1-based
    not_run: str = None  # the reason given, for a block marked not to run
    expected: str = None  # the output block that follows it, if any

    @property
    def runs(self):
        return self.language in ("python", "py") and self.not_run is None


def blocks(markdown):
    """The fenced blocks of `markdown`, each python block with the output
    block that follows it (which is then not a block of its own)."""
    lines = markdown.splitlines()
    found, i, marked = [], 0, None
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if NOT_RUN.match(lines[i]):
                marked = NOT_RUN.match(lines[i]).group("why")
            elif lines[i].strip():
                marked = None
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        body, j = [], i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence)
                                      and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        if j == len(lines):
            raise ValueError(f"line {i + 1}: a code block that is never closed")
        found.append(Block(m.group("info").lower(), "\n".join(body) + "\n", i + 1, marked))
        marked, i = None, j + 1
    return _pair_outputs(found, lines)


def _pair_outputs(found, lines):
    """A python block whose next non-blank line is `prints` and whose next
    block follows that line owns the block as its expected output."""
    out, k = [], 0
    while k < len(found):
        block = found[k]
        out.append(block)
        k += 1
        if block.language not in ("python", "py") or k == len(found):
            continue
        end = block.line + block.text.count("\n")  # the closing fence, 0-based index + 1
        between = [ln for ln in lines[end + 1:found[k].line - 1] if ln.strip()]
        if len(between) == 1 and OUTPUT_LEAD.match(between[0]):
            block.expected = found[k].text
            k += 1
    return out


def output_matches(expected, got):
    """`got` is `expected`, with `...` in `expected` matching any text, and
    trailing spaces and blank lines at the end ignored."""
    import doctest

    def norm(s):
        return "\n".join(line.rstrip() for line in s.strip("\n").splitlines()) + "\n"
    return doctest.OutputChecker().check_output(norm(expected), norm(got), doctest.ELLIPSIS)
