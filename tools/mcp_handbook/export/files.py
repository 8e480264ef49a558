"""Writing exports safely and reproducibly.

A failed export must never leave a half-written file or folder where the old
one was, so files are written beside their target and renamed into place, and
a folder is built beside its target and swapped in. Zip archives (the XLSX
workbook, the skill download) get fixed timestamps so the same doctrine gives
the same bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can carry; used when no date is given."""


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_tree(folder: Path, files: Mapping[str, str | bytes], *, marker: str) -> None:
    """Replace ``folder`` with exactly ``files`` (relative posix paths), all or nothing.

    ``marker`` is a file every earlier version of the folder holds (``SKILL.md``):
    a non-empty folder without it is refused, so a mistyped ``-o ~`` never
    replaces someone's home directory.
    """
    if folder.exists() and (not folder.is_dir() or (any(folder.iterdir()) and not (folder / marker).is_file())):
        raise FileExistsError(f"{folder} exists and is not a folder this command wrote (no {marker}); refusing to replace it")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for rel, data in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        staging.chmod(0o755)
        _swap_in(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap_in(staging: Path, folder: Path) -> None:
    old = None
    if folder.exists():
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        folder.rename(old)
    try:
        staging.rename(folder)
    except BaseException:
        if old is not None:
            old.rename(folder)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def zip_time(date: str) -> tuple[int, int, int, int, int, int]:
    """A zip entry time for an ISO date (midnight), so archives depend only on the stamp."""
    try:
        day = dt.date.fromisoformat(date)
    except ValueError:
        return ZIP_EPOCH
    return (day.year, day.month, day.day, 0, 0, 0) if day.year >= 1980 else ZIP_EPOCH


class FixedTimeZipFile(zipfile.ZipFile):
    """A ZipFile whose entries written by name all carry one fixed time and mode.

    ``openpyxl`` writes its parts with ``writestr(name, data)``, which would
    stamp the current time; this keeps the workbook reproducible.
    """

    fixed_time: tuple[int, int, int, int, int, int] = ZIP_EPOCH

    def writestr(self, zinfo_or_arcname, data, compress_type=None, compresslevel=None):
        if not isinstance(zinfo_or_arcname, zipfile.ZipInfo):
            info = zipfile.ZipInfo(str(zinfo_or_arcname), date_time=self.fixed_time)
            info.compress_type = self.compression if compress_type is None else compress_type
            info.external_attr = 0o644 << 16
            zinfo_or_arcname = info
        return super().writestr(zinfo_or_arcname, data, compress_type, compresslevel)

    def write(self, filename, arcname=None, compress_type=None, compresslevel=None):
        # openpyxl streams each sheet through a temporary file: its mtime must not leak in
        data = Path(filename).read_bytes()
        return self.writestr(str(arcname or Path(filename).name), data, compress_type, compresslevel)


def zip_bytes(files: Mapping[str, str | bytes], *, date: str) -> bytes:
    """A deflated zip of ``files`` in sorted order with fixed times: same input, same bytes."""
    buffer = io.BytesIO()
    with FixedTimeZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.fixed_time = zip_time(date)
        for name in sorted(files):
            archive.writestr(name, files[name])
    return buffer.getvalue()
