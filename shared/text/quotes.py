"""Quotes of a passage as a citation shows them: verbatim pieces, gaps marked, length bounded."""

from __future__ import annotations

import itertools

from shared.text.tables import CELL_MARK, LABEL_MARK, row_cells, row_parts, row_unit

QUOTE_LIMIT = 300
QUOTE_GAP = " … "
CUT = "…"
# The fewest characters of a sentence worth showing after a quote's other pieces.
MIN_CUT = 24


def _cut_row(piece: str, room: int) -> str | None:
    """A table row shortened to the cells that fit in `room`: its label and whole figures are what
    the page prints, so a row cut inside a cell ("… Nine Months Ended September") could not be
    checked against the page or highlighted. None when the piece is not a row or no cell fits."""
    cells = row_cells(piece)
    if not cells:
        return None
    head, unit = piece.strip().split(LABEL_MARK, 1)[0], row_unit(piece)
    # Before its last figure, the row gives up its unit's note, "(in millions)", then its group,
    # "Investing activities: " (neither is a figure the page prints beside the label).
    units = [f" (in {unit})", ""] if unit else [""]
    for label, suffix in itertools.product(dict.fromkeys([head, head.split(": ")[-1]]), units):
        kept = list(cells)
        while len(kept) > 1 and len(f"{label}{LABEL_MARK}{CELL_MARK.join(kept)}{suffix}") > room:
            kept.pop()
        quote = f"{label}{LABEL_MARK}{CELL_MARK.join(kept)}{suffix}"
        if len(quote) <= room:
            return quote
    return None


def quote_of(texts: list[str]) -> str:
    """Sentences of one passage as one quote; a gap between them is marked, so that every piece
    reads verbatim in the document (sentences that were not adjacent are not glued together)."""
    quote = QUOTE_GAP.join(texts)
    if len(quote) <= QUOTE_LIMIT:
        return quote
    pieces: list[str] = []
    for text in texts:
        room = QUOTE_LIMIT - len(QUOTE_GAP.join([*pieces, ""])) - len(CUT) - 1
        if len(text) <= room:
            pieces.append(text)
            continue
        row = _cut_row(text, room)
        if pieces and row is None and (row_parts(text) is not None or room < MIN_CUT):
            # Not one whole cell of a row fits (a row cut inside a cell is not what the page
            # prints), or too little of a sentence to read: the quote ends with the pieces before.
            return QUOTE_GAP.join(pieces) + " " + CUT
        cut = row + " " + CUT if row else text[: max(room, 0)].rsplit(" ", 1)[0] + CUT
        return QUOTE_GAP.join([*pieces, cut]) if pieces else cut
    return QUOTE_GAP.join(pieces)
