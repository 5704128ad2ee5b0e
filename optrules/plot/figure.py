"""What every plot shares: a matplotlib figure of a given size in inches and dots per inch,
drawn off screen (matplotlib's Agg canvas, never pyplot) and saved as PNG or SVG by the file
name's suffix. matplotlib, the optional extra ``plot``, is imported on first use.

A figure has at least 1 pixel a side, each side below 65536 pixels (Agg's limit) and at most
2**26 pixels in all (about 67 Mpx, 256 MB of RGBA): 200 by 200 inches at 300 dpi would ask
for 14 GB of memory."""

import warnings
from pathlib import Path

from optrules.validation import FilePath, Real, Sequence, validate_params

__all__ = ["new_figure", "save", "pixel_size", "size_problem", "file_format", "counted",
           "require_matplotlib", "MatplotlibMissing", "FORMATS", "INSTALL_HINT", "MAX_PIXELS"]

#: File name suffix -> the format written.
FORMATS = {".png": "png", ".svg": "svg"}
INSTALL_HINT = "optrules.plot needs matplotlib: install optrules[plot] (pip install " \
    "'optrules[plot]')"
#: Sides Agg draws are below this many pixels.
_MAX_SIDE = 1 << 16
#: Most pixels of a figure (width times height).
MAX_PIXELS = 1 << 26

class MatplotlibMissing(ImportError):
    """matplotlib, which plots need, is not installed."""


_CONSTRAINTS = {"path": [FilePath()], "size": [Sequence()], "dpi": [Real()]}


def new_figure(path, size, dpi, owner):
    """A blank figure of ``size`` (width, height) inches at ``dpi``, for ``path`` (a .png or
    .svg file); the parameters are checked here for the plotting function ``owner``: the
    figure must have 1 to 65535 pixels a side and at most 2**26 in all (:func:`size_problem`).

    Raises :class:`MatplotlibMissing` (an ImportError saying how to install matplotlib) when
    it is missing, TypeError or ValueError naming a bad parameter.
    """
    given = validate_params(_CONSTRAINTS, {"path": path, "size": size, "dpi": dpi}, owner)
    file_format(path, f"The 'path' parameter of {owner}")
    size = tuple(given["size"])
    if len(size) != 2 or not all(_is_positive(side) for side in size):
        raise ValueError(f"The 'size' parameter of {owner} must be (width, height) in inches, "
                         f"both positive. Got {size!r} instead.")
    problem = size_problem(size, given["dpi"])
    if problem:
        raise ValueError(f"The 'size' and 'dpi' parameters of {owner} ({size!r} inches at "
                         f"{given['dpi']:g} dpi) {problem}")
    figure_class, canvas_class = require_matplotlib()
    figure = figure_class(figsize=size, dpi=given["dpi"], layout="constrained")
    canvas_class(figure)
    return figure


def require_matplotlib():
    """matplotlib's (Figure, FigureCanvasAgg), imported now; :class:`MatplotlibMissing` when
    it is not installed."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise MatplotlibMissing(INSTALL_HINT) from error
    return Figure, FigureCanvasAgg


def save(figure, path):
    """Write ``figure`` to ``path`` in the format its suffix names, at the figure's own size
    and dpi (no cropping, so the file has exactly the size asked for); the path, as a Path."""
    path = Path(path)
    with warnings.catch_warnings():
        # A figure too small for its labels is drawn as asked, without the layout; matplotlib
        # would warn on stderr about what the user chose.
        warnings.filterwarnings("ignore", "constrained_layout not applied", UserWarning)
        figure.savefig(path, format=file_format(path, "path"), dpi=figure.dpi)
    return path


def file_format(path, name):
    """The format ``path``'s suffix names ("png" or "svg"); else a ValueError naming the
    parameter or option ``name``."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{name} must end in .png or .svg (the format is read from it). Got "
                         f"{str(path)!r} instead.")
    return FORMATS[suffix]


def pixel_size(size, dpi):
    """(width, height) in pixels of a figure of ``size`` inches at ``dpi``: Agg drops the
    fraction of a pixel."""
    return tuple(int(side * dpi) for side in size)


def size_problem(size, dpi):
    """Why a figure of ``size`` inches at ``dpi`` cannot be drawn (its pixel counts and the
    limits), or None when it can."""
    width, height = pixel_size(size, dpi)
    if min(width, height) >= 1 and max(width, height) < _MAX_SIDE and \
            width * height <= MAX_PIXELS:
        return None
    return (f"give {width} x {height} pixels; each side must be from 1 to {_MAX_SIDE - 1} "
            f"pixels and the figure at most 2**26 = {MAX_PIXELS} pixels.")


def counted(number, noun):
    """``number`` and ``noun``, plural unless it is 1: "1 node", "3 nodes"."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _is_positive(value):
    try:
        return 0 < float(value) < float("inf")
    except (TypeError, ValueError):
        return False
