"""Writing files and folders so that a reader sees the old or the new version, never a mix.

Every file slingsim writes goes to a temporary name beside its target and is
renamed over it (``os.replace`` is atomic on one file system). An output
folder (``--out DIR``) is built complete under a temporary name and then
exchanged with the old folder in one step (``renameat2(RENAME_EXCHANGE)``
on Linux, ``renamex_np(RENAME_SWAP)`` on macOS), so a run killed at any
moment leaves ``DIR`` holding either the previous complete result or the new
one. Where the system has no atomic exchange, the old folder is moved aside
and the new one moved in: two renames, with a moment between them in which
``DIR`` does not exist.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Optional, Union

PathLike = Union[str, "os.PathLike[str]"]

STAGING_PREFIX = ".slingsim-staging-"
"""Name prefix of a folder being written; it never is a result."""

MARKER = "provenance.json"
"""Written into every output folder; a folder holding it may be replaced by a new result."""


def write_bytes(path: PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename."""
    return _write_via(Path(path), lambda tmp: tmp.write_bytes(data))


def write_text(path: PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def write_with(path: PathLike, writer: Callable[[Path], object]) -> Path:
    """Let ``writer`` write a temporary file (given its path), then rename it to ``path``.

    For writers that want a file name, e.g. ``pyarrow.parquet.write_table``
    or ``Figure.savefig``; the suffix of ``path`` is kept so they pick the
    right format.
    """
    return _write_via(Path(path), writer)


def _write_via(target: Path, writer: Callable[[Path], object]) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent)
    os.close(handle)
    tmp = Path(name)
    try:
        writer(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes files private; results are shared like any other file
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def check_replaceable(target: PathLike, option: str = "--out") -> Path:
    """``target`` as a Path if a new result may take its place: it does not exist,
    is an empty folder, or is a folder slingsim wrote (it holds ``provenance.json``).

    Anything else is a ``FileExistsError`` naming ``option``, so a mistyped
    ``--out .`` cannot replace a folder of the user's own files.
    """
    path = Path(target)
    if not path.exists():
        return path
    if not path.is_dir():
        raise FileExistsError(f"{option} {path}: is a file, not a folder; choose a folder for the results")
    if any(path.iterdir()) and not (path / MARKER).is_file():
        raise FileExistsError(
            f"{option} {path}: the folder holds files slingsim did not write (no {MARKER}); "
            "choose a new or empty folder, or remove this one first"
        )
    return path


@contextlib.contextmanager
def staged_folder(target: PathLike, option: str = "--out") -> Iterator[Path]:
    """Yield an empty staging folder beside ``target``; on success it replaces ``target`` in one step.

    If the block raises (or the process dies), ``target`` is left as it
    was and the staging folder is removed (or, after a kill, swept away by
    the next write beside it).
    """
    path = check_replaceable(target, option)
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep_stale_staging(path.parent)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=path.parent))
    os.chmod(staging, 0o777 & ~_umask())
    try:
        yield staging
        replace_folder(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def replace_folder(new: Path, target: Path) -> None:
    """Put the folder ``new`` at ``target``; the old ``target`` (if any) ends up at ``new`` and is removed."""
    try:
        os.rename(new, target)  # atomic when target does not exist, or is an empty folder
        return
    except OSError:
        if not target.exists():
            raise
    if _exchange(new, target):
        shutil.rmtree(new, ignore_errors=True)
        return
    aside = new.with_name(new.name + "-old")
    os.rename(target, aside)
    os.rename(new, target)
    shutil.rmtree(aside, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically if the system can; False if it cannot."""
    libc = _libc()
    if libc is None:
        return False
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        at_fdcwd, rename_exchange = -100, 2
        call = lambda: libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)  # noqa: E731
    elif sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        rename_swap = 2
        call = lambda: libc.renamex_np(os.fsencode(a), os.fsencode(b), rename_swap)  # noqa: E731
    else:
        return False
    if call() == 0:
        return True
    errno = ctypes.get_errno()
    if errno in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: this file system cannot exchange
        return False
    raise OSError(errno, os.strerror(errno), str(b))


_LIBC: Optional[ctypes.CDLL] = None
_UMASK: Optional[int] = None


def _umask() -> int:
    """The process's umask (read once: reading it means setting it)."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def _libc() -> Optional[ctypes.CDLL]:
    global _LIBC
    if _LIBC is None and os.name == "posix":
        try:
            _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        except OSError:
            return None
    return _LIBC


def _sweep_stale_staging(folder: Path) -> None:
    """Remove staging folders left in ``folder`` by processes that no longer run."""
    for entry in folder.glob(f"{STAGING_PREFIX}*"):
        pid_text = entry.name[len(STAGING_PREFIX):].split("-", 1)[0]
        if pid_text.isdigit() and not _running(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (always assumed so where signals cannot probe it)."""
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
