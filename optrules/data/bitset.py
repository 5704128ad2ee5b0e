"""Packed bitsets over samples: numpy ``uint64`` words, popcount via ``np.bitwise_count``.

A *bitset over N samples* stores sample ``i`` in word ``i // 64``, bit ``i % 64``
(little-endian within and across words); padding bits past ``N`` are always 0.
A stack of bitsets is a 2-D array of shape ``(n_sets, n_words)``.

The reference engines use the same bits as arbitrary-precision Python integers
(bit ``i`` = sample ``i``), where ``&``, ``|``, ``^`` and ``int.bit_count`` are the
readable pure-Python bitset; :func:`to_int` and :func:`from_int` convert exactly.
"""

import numpy as np

__all__ = ["WORD_BITS", "n_words", "pack", "unpack", "popcount", "to_int", "from_int",
           "int_members", "int_from_members"]

WORD_BITS = 64


def n_words(n_samples):
    """Number of 64-bit words that hold ``n_samples`` bits."""
    return (n_samples + WORD_BITS - 1) // WORD_BITS


def pack(bits):
    """Pack a boolean array ``(..., n_samples)`` into ``uint64`` words ``(..., n_words)``."""
    bits = np.asarray(bits, dtype=bool)
    n_samples = bits.shape[-1]
    padded_bytes = n_words(n_samples) * 8
    packed = np.packbits(bits, axis=-1, bitorder="little")
    pad = padded_bytes - packed.shape[-1]
    if pad:
        widths = [(0, 0)] * (packed.ndim - 1) + [(0, pad)]
        packed = np.pad(packed, widths)
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64, copy=False)


def unpack(words, n_samples):
    """Inverse of :func:`pack`: boolean array ``(..., n_samples)``."""
    words = np.ascontiguousarray(np.asarray(words, dtype="<u8"))
    as_bytes = words.view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=n_samples, bitorder="little").astype(bool)


def popcount(words):
    """Number of set bits along the last axis (an int for a single bitset)."""
    counts = np.bitwise_count(np.asarray(words, dtype=np.uint64)).sum(axis=-1, dtype=np.int64)
    return int(counts) if np.ndim(counts) == 0 else counts


def to_int(words):
    """One packed bitset as a Python integer whose bit ``i`` is sample ``i``."""
    return int.from_bytes(np.ascontiguousarray(words, dtype="<u8").tobytes(), "little")


def from_int(value, n_samples):
    """A Python integer (bit ``i`` = sample ``i``) as one packed bitset."""
    if value < 0 or value.bit_length() > n_samples:
        raise ValueError(f"bitset value has bits beyond sample {n_samples - 1}")
    raw = value.to_bytes(n_words(n_samples) * 8, "little")
    return np.frombuffer(raw, dtype="<u8").astype(np.uint64)


def int_members(value):
    """Positions of the set bits of a non-negative Python integer, ascending (a list)."""
    raw = np.frombuffer(value.to_bytes((value.bit_length() + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist()


def int_from_members(positions, n_samples):
    """The Python integer whose set bits are ``positions`` (each < ``n_samples``), in O(n)
    (summing ``1 << i`` would cost O(n²) bit operations)."""
    bits = np.zeros(n_samples, dtype=bool)
    bits[np.asarray(positions, dtype=np.int64)] = True
    return to_int(pack(bits))
