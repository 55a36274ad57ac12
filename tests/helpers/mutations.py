"""Hypothesis strategies that change MEMORY.md the way people and tools do.

Each mutation maps the file's bytes to new bytes: hand-written entries and free text, CRLF
line endings, a byte-order mark, duplicated or missing headers, long lines, any Unicode,
deleted lines, and truncation at any byte (which may cut a character in half). A hand edit
is one to three of them, written straight to disk as an editor would.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

__all__ = ["MUTATIONS", "Mutation", "hand_edit", "one_line_text", "unicode_text"]

Mutation = Callable[[bytes], bytes]

# Any character a UTF-8 file can hold (no lone surrogates), line breaks included.
unicode_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
# Text an entry may be: one line, any script, no leading '#' or bullet marker.
one_line_text = (
    st.text(
        st.characters(
            exclude_categories=["Cs", "Cc", "Zl", "Zp"],
            exclude_characters="\x1c\x1d\x1e\x85",
        ),
        min_size=1,
        max_size=60,
    )
    .map(lambda s: " ".join(s.split()).lstrip("#-*+ "))
    .filter(bool)
)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _insert_line(data: bytes, at: int, line: bytes) -> bytes:
    lines = _lines(data)
    lines.insert(at % (len(lines) + 1), line)
    return b"\n".join(lines)


def _headers(data: bytes) -> list[int]:
    return [i for i, line in enumerate(_lines(data)) if line.lstrip().startswith(b"#")]


@st.composite
def _add_entry(draw: st.DrawFn) -> Mutation:
    text = draw(one_line_text).encode()
    at = draw(st.integers(0, 1_000))
    return lambda data: _insert_line(data, at, b"- " + text)


@st.composite
def _free_text(draw: st.DrawFn) -> Mutation:
    text = draw(unicode_text).encode()
    at = draw(st.integers(0, 1_000))
    return lambda data: _insert_line(data, at, text)


@st.composite
def _duplicate_header(draw: st.DrawFn) -> Mutation:
    pick, at = draw(st.integers(0, 100)), draw(st.integers(0, 1_000))

    def mutate(data: bytes) -> bytes:
        headers = _headers(data)
        if not headers:
            return data
        return _insert_line(data, at, _lines(data)[headers[pick % len(headers)]])

    return mutate


@st.composite
def _drop_header(draw: st.DrawFn) -> Mutation:
    pick = draw(st.integers(0, 100))

    def mutate(data: bytes) -> bytes:
        headers = _headers(data)
        if not headers:
            return data
        lines = _lines(data)
        del lines[headers[pick % len(headers)]]
        return b"\n".join(lines)

    return mutate


@st.composite
def _delete_line(draw: st.DrawFn) -> Mutation:
    pick = draw(st.integers(0, 1_000))

    def mutate(data: bytes) -> bytes:
        lines = _lines(data)
        del lines[pick % len(lines)]
        return b"\n".join(lines)

    return mutate


@st.composite
def _long_line(draw: st.DrawFn) -> Mutation:
    line = b"- " + draw(st.sampled_from(["x", "ü", "語", "😀"])).encode() * draw(
        st.integers(1_000, 20_000)
    )
    at = draw(st.integers(0, 1_000))
    return lambda data: _insert_line(data, at, line)


@st.composite
def _truncate(draw: st.DrawFn) -> Mutation:
    keep = draw(st.floats(0, 1))
    return lambda data: data[: int(len(data) * keep)]


MUTATIONS: dict[str, st.SearchStrategy[Mutation]] = {
    "add entry": _add_entry(),
    "free text": _free_text(),
    "crlf": st.just(lambda data: data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")),
    "bom": st.just(lambda data: b"\xef\xbb\xbf" + data.removeprefix(b"\xef\xbb\xbf")),
    "duplicate header": _duplicate_header(),
    "drop header": _drop_header(),
    "delete line": _delete_line(),
    "long line": _long_line(),
    "truncate": _truncate(),
    "empty": st.just(lambda data: b""),
}
"""Each kind of change, by name (the reliability report lists them)."""


@st.composite
def hand_edit(draw: st.DrawFn) -> tuple[tuple[str, ...], Mutation]:
    """One to three mutations applied in order: (their names, the combined change)."""
    names = draw(st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=3))
    steps = [draw(MUTATIONS[name]) for name in names]

    def apply(data: bytes) -> bytes:
        for step in steps:
            data = step(data)
        return data

    return tuple(names), apply
