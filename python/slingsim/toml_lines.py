"""The line of every key in a TOML document, so an error can point at it.

``tomllib`` gives the document's values but not where they were written;
:func:`key_lines` walks the text once more and records, for every key path
(``("traffic", 1, "load")``: the ``load`` of the second ``[[traffic]]``
table), the line that sets it. Table headers (``[sim]``, ``[[job]]``), dotted
keys, inline tables and the elements of arrays all get their line.

The text must already have parsed with ``tomllib``: this scanner trusts the
syntax and only follows the structure. It never raises; on anything it does
not follow it returns the lines found so far, and a key without a line is
still named by its file.
"""
from __future__ import annotations

import sys
from typing import Dict, List, Tuple, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

KeyPath = Tuple[Union[str, int], ...]
"""A key's place in a config: table keys as strings, array positions as integers."""

BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
"""Characters of an unquoted TOML key."""

VALUE_END = frozenset(",]}#\n\r\t ")
"""Characters that end a bare value (number, boolean, date)."""


def key_lines(text: str) -> Dict[KeyPath, int]:
    """Line number (from 1) of every key path set in the TOML ``text``."""
    scanner = _Scanner(text)
    try:
        scanner.document()
    except (IndexError, ValueError, tomllib.TOMLDecodeError):
        pass  # not followed past here; the lines found so far stand
    return scanner.lines


class _Scanner:
    """A cursor over the text that records key lines as it walks the document."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: Dict[KeyPath, int] = {}
        self.array_counts: Dict[KeyPath, int] = {}  # [[array]] tables seen so far, by concrete path

    # -- the document: headers and key/value lines ---------------------------------------------

    def document(self) -> None:
        table: KeyPath = ()
        while self.skip_space(newlines=True):
            if self.text.startswith("[[", self.pos):
                self.advance(2)
                table = self.array_table(self.key())
                self.expect("]]")
            elif self.peek() == "[":
                self.advance(1)
                table = self.concrete(self.key())
                self.record(table)
                self.expect("]")
            else:
                self.key_value(table)
            self.skip_line()

    def array_table(self, keys: List[str]) -> KeyPath:
        """The concrete path of a new ``[[a.b]]`` entry: the array's path plus its next index."""
        array = self.concrete(keys[:-1]) + (keys[-1],)
        index = self.array_counts.get(array, 0)
        self.array_counts[array] = index + 1
        self.record(array)
        self.record(array + (index,))
        return array + (index,)

    def concrete(self, keys: List[str]) -> KeyPath:
        """A header's dotted keys as a path, with the current entry of every array of tables on the way."""
        path: KeyPath = ()
        for key in keys:
            path += (key,)
            if path in self.array_counts:
                path += (self.array_counts[path] - 1,)
        return path

    def key_value(self, table: KeyPath) -> None:
        path = table
        for key in self.key():
            path += (key,)
            self.record(path)
        self.expect("=")
        self.value(path)

    # -- values -------------------------------------------------------------------------------

    def value(self, path: KeyPath) -> None:
        self.skip_space(newlines=False)
        self.record(path)
        char = self.peek()
        if char in "\"'":
            self.string()
        elif char == "[":
            self.array(path)
        elif char == "{":
            self.inline_table(path)
        else:
            while self.pos < len(self.text) and self.text[self.pos] not in VALUE_END:
                self.advance(1)

    def array(self, path: KeyPath) -> None:
        self.advance(1)
        index = 0
        while True:
            self.skip_space(newlines=True)
            if self.peek() == "]":
                self.advance(1)
                return
            if self.peek() == ",":
                self.advance(1)
                continue
            self.value(path + (index,))
            index += 1
            self.skip_space(newlines=True)
            while self.peek() not in ",]":  # the time part of a date-time written with a space
                self.value(path + (index - 1,))
                self.skip_space(newlines=True)

    def inline_table(self, path: KeyPath) -> None:
        self.advance(1)
        while True:
            self.skip_space(newlines=True)
            if self.peek() == "}":
                self.advance(1)
                return
            if self.peek() == ",":
                self.advance(1)
                continue
            self.key_value(path)

    def string(self) -> None:
        quote = self.peek()
        triple = self.text.startswith(quote * 3, self.pos)
        self.advance(3 if triple else 1)
        while True:
            char = self.peek()
            if char == "\\" and quote == '"':
                self.advance(2)
            elif triple and self.text.startswith(quote * 3, self.pos):
                self.advance(3)
                while self.peek() == quote:  # up to two quotes may end the content
                    self.advance(1)
                return
            elif not triple and char == quote:
                self.advance(1)
                return
            else:
                self.advance(1)

    # -- keys ---------------------------------------------------------------------------------

    def key(self) -> List[str]:
        """A dotted key (bare or quoted parts) as its list of parts."""
        parts = []
        while True:
            self.skip_space(newlines=False)
            if self.peek() in "\"'":
                start = self.pos
                self.string()
                parts.append(tomllib.loads(f"k = {self.text[start:self.pos]}")["k"])
            else:
                start = self.pos
                while self.peek() in BARE_KEY_CHARS:
                    self.advance(1)
                if start == self.pos:
                    raise ValueError(f"no key at line {self.line}")
                parts.append(self.text[start:self.pos])
            self.skip_space(newlines=False)
            if self.peek() != ".":
                return parts
            self.advance(1)

    # -- the cursor ---------------------------------------------------------------------------

    def record(self, path: KeyPath) -> None:
        self.lines.setdefault(path, self.line)

    def peek(self) -> str:
        return self.text[self.pos]

    def advance(self, count: int) -> None:
        end = min(self.pos + count, len(self.text))
        self.line += self.text.count("\n", self.pos, end)
        self.pos = end

    def expect(self, token: str) -> None:
        self.skip_space(newlines=False)
        if not self.text.startswith(token, self.pos):
            raise ValueError(f"expected {token!r} at line {self.line}")
        self.advance(len(token))

    def skip_space(self, newlines: bool) -> bool:
        """Skip blanks (and newlines and comments if ``newlines``); False at the end of the text."""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in " \t" or (newlines and char in "\r\n"):
                self.advance(1)
            elif newlines and char == "#":
                self.skip_line()
            else:
                return True
        return False

    def skip_line(self) -> None:
        """Skip to the start of the next line (the rest of a line after its value is blanks or a comment)."""
        end = self.text.find("\n", self.pos)
        self.advance((len(self.text) if end < 0 else end + 1) - self.pos)
