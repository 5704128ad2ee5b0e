"""What every plot shares: a matplotlib figure of a given size in inches and dots per inch,
drawn off screen (matplotlib's Agg canvas, never pyplot) and saved as PNG or SVG by the file
name's suffix. matplotlib, the optional extra ``plot``, is imported on first use."""

from pathlib import Path

from optrules.validation import FilePath, Real, Sequence, validate_params

__all__ = ["new_figure", "save", "pixel_size", "require_matplotlib", "MatplotlibMissing",
           "FORMATS", "INSTALL_HINT"]

#: File name suffix -> the format written.
FORMATS = {".png": "png", ".svg": "svg"}
INSTALL_HINT = "optrules.plot needs matplotlib: install optrules[plot] (pip install " \
    "'optrules[plot]')"
#: Largest side in pixels Agg draws.
_MAX_PIXELS = 1 << 16

class MatplotlibMissing(ImportError):
    """matplotlib, which plots need, is not installed."""


_CONSTRAINTS = {"path": [FilePath()], "size": [Sequence()], "dpi": [Real()]}


def new_figure(path, size, dpi, owner):
    """A blank figure of ``size`` (width, height) inches at ``dpi``, for ``path`` (a .png or
    .svg file); the parameters are checked here for the plotting function ``owner``.

    Raises :class:`MatplotlibMissing` (an ImportError saying how to install matplotlib) when
    it is missing, TypeError or ValueError naming a bad parameter.
    """
    given = validate_params(_CONSTRAINTS, {"path": path, "size": size, "dpi": dpi}, owner)
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"The 'path' parameter of {owner} must end in .png or .svg (the "
                         f"format is read from it). Got {str(path)!r} instead.")
    size = tuple(given["size"])
    if len(size) != 2 or not all(_is_positive(side) for side in size):
        raise ValueError(f"The 'size' parameter of {owner} must be (width, height) in inches, "
                         f"both positive. Got {size!r} instead.")
    if max(size) * given["dpi"] >= _MAX_PIXELS:
        raise ValueError(f"The 'size' and 'dpi' parameters of {owner} ask for "
                         f"{pixel_size(size, given['dpi'])} pixels; each side must stay below "
                         f"{_MAX_PIXELS}.")
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
    figure.savefig(path, format=FORMATS[path.suffix.lower()], dpi=figure.dpi)
    return path


def pixel_size(size, dpi):
    """(width, height) in pixels of a figure of ``size`` inches at ``dpi``: Agg drops the
    fraction of a pixel."""
    return tuple(int(side * dpi) for side in size)


def _is_positive(value):
    try:
        return 0 < float(value) < float("inf")
    except (TypeError, ValueError):
        return False
