"""JSON bodies and frames within bounds: at most ``max_values`` values and ``max_depth`` levels
of nesting, checked on the raw bytes before the parser builds a single object.

The parser builds a Python object for every value, about 100 bytes each however few bytes the
value takes on the wire: 16 MiB of ``[[],[],…]`` is 5.6 million lists, half a gigabyte and half
a second of the event loop. ``check`` counts instead, with operations that run over the bytes
at C speed (``translate``, ``count``, ``replace``, ``split``) and build no object per value:

1. escaped backslashes and escaped quotes are dropped, so that every ``"`` left delimits a
   string;
2. every byte but ``[]{},:"`` is dropped (``translate``): what is left is the structure, with
   the strings' quotes and whatever of those characters the strings hold;
3. the strings are set aside: those that hold none of those characters, most of them, are
   ``""`` pairs, counted (and left); when some hold more, the pairs are dropped and the
   others with them, by splitting at the quotes, a slice at a time;
4. every item of an array or object but its first follows a ``,``, and every object member
   has a ``:``; so the commas, the colons and the opening brackets, plus one, count the values
   and keys the parser builds (an empty array or object twice: the scan cannot tell it from
   one that holds a number, and an empty one costs the parser as much as a number). The
   brackets alone give the nesting, one level removed by each ``replace`` of innermost
   pairs.

A body too short to exceed either bound is not looked at. The scan reads the strings of a
body as the parser does up to the first error the parser would meet, so it never lets
through a body whose parse would build more than the bounds allow, valid or not.
"""

from __future__ import annotations

from app.errors import ErrorCode, InvalidRequest, TooLarge

_STRUCTURE = b'[]{},:"'
_NOT_STRUCTURE = bytes(c for c in range(256) if c not in _STRUCTURE)
_SQUARE = bytes.maketrans(b"{}", b"[]")
# strings that hold structural characters are dropped a slice at a time, so that the pieces of
# a split never pile up (a piece is a bytes object of its own)
_SLICE = 64 * 1024


def check(raw: bytes, max_values: int, max_depth: int, what: str = "the body") -> None:
    """Refuse (413 ``REQUEST_TOO_COMPLEX``) JSON text whose parse would build more than
    ``max_values`` values (keys included) or nest deeper than ``max_depth``; 400
    ``INVALID_REQUEST`` for brackets that do not match."""
    size = len(raw)
    if size < max_values and size <= 2 * max_depth:
        return  # too short to hold more values, or to nest deeper
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = raw.translate(None, _NOT_STRUCTURE)
    quotes = structure.count(b'"')
    if quotes // 2 > max_values:  # each string is a value or a key
        raise _too_many(what, max_values)
    if quotes and structure.count(b'""') * 2 != quotes:  # some strings hold structure
        structure = _outside_strings(structure.replace(b'""', b""))
        quotes = 0
    # the quotes left, if any, are those of strings that hold nothing of the structure
    nesting = structure.translate(_SQUARE, b',:"')
    closing = nesting.count(b"]")
    if len(structure) - quotes - closing + 1 > max_values:
        raise _too_many(what, max_values)
    if len(nesting) - closing <= max_depth:
        return  # no more opening brackets than levels allowed
    for _ in range(max_depth):
        inner = nesting.replace(b"[]", b"")
        if not inner:
            return
        if len(inner) == len(nesting):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, f"{what} is not valid JSON: its brackets do not match"
            )
        nesting = inner
    raise TooLarge(
        ErrorCode.REQUEST_TOO_COMPLEX,
        f"{what} nests arrays and objects deeper than {max_depth} levels (SLUICE_MAX_JSON_DEPTH)",
    )


def _outside_strings(structure: bytes) -> bytes:
    """``structure`` without its strings (quotes included); an unclosed string runs to the
    end."""
    kept: list[bytes] = []
    inside = False
    for start in range(0, len(structure), _SLICE):
        pieces = structure[start : start + _SLICE].split(b'"')
        kept.append(b"".join(pieces[inside::2]))
        if len(pieces) % 2 == 0:  # an odd number of quotes: the slice ends on the other side
            inside = not inside
    return b"".join(kept)


def _too_many(what: str, max_values: int) -> TooLarge:
    return TooLarge(
        ErrorCode.REQUEST_TOO_COMPLEX,
        f"{what} holds more than {max_values} JSON values (SLUICE_MAX_JSON_VALUES)",
    )
