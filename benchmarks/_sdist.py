"""Source trees for the benchmarks: an sdist found on the package index, downloaded as a
file, its sha256 checked, and unpacked; never built.

``pip download --no-binary :all:`` prepares an sdist's metadata, which builds the
project's build backend, and that backend's own dependencies, from source as well:
scikit-learn's (meson-python) fails that way. The sdist is one file on the index, found
through its JSON simple API (PEP 691, https://peps.python.org/pep-0691/): the index of
``PIP_INDEX_URL``, or PyPI's. An index without that API falls back to ``pip download``.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import InvalidVersion, Version

PYPI = "https://pypi.org/simple"
JSON_PAGE = "application/vnd.pypi.simple.v1+json"
ACCEPT = f"{JSON_PAGE}, text/html;q=0.01"
"""An index without the JSON API answers HTML (and the download falls back to pip)
rather than 406."""
TIMEOUT = 120.0
"""Seconds one request may take."""


class SdistError(Exception):
    """The sdist cannot be found, fetched or unpacked (the message says why)."""


def sdist_link(page: Mapping[str, Any], project: str, version: str) -> tuple[str, str, str]:
    """``(url, sha256, filename)`` of the sdist of ``project==version`` among the files
    of a project's PEP 691 page: ``.tar.gz`` before ``.zip``, a yanked file only when no
    other is there (as pip takes a pinned version).

    Raises:
        SdistError: If the page is not a PEP 691 page, has no such sdist, or gives no
            sha256 for it; or ``version`` is not a version.
    """
    try:
        wanted = (canonicalize_name(project), Version(version))
        found = []
        for file in page["files"]:
            filename = str(file["filename"])
            try:
                name, file_version = parse_sdist_filename(filename)
            except (InvalidSdistFilename, InvalidVersion):
                continue  # a wheel, or a file named otherwise
            if (name, file_version) == wanted:
                found.append((bool(file.get("yanked")), not filename.endswith(".tar.gz"), file))
        if not found:
            raise SdistError(f"the index has no sdist of {project}=={version}")
        file = min(found, key=lambda item: item[:2])[2]
        digest = (file.get("hashes") or {}).get("sha256")
        if not digest:
            raise SdistError(f"the index gives no sha256 for {file['filename']}")
        return str(file["url"]), str(digest).lower(), str(file["filename"])
    except (KeyError, TypeError, AttributeError, InvalidVersion) as error:
        raise SdistError(
            f"not a PEP 691 project page for {project}=={version}: {error!r}"
        ) from error


def download_sdist(project: str, version: str, folder: Path) -> Path:
    """The sdist of ``project==version``, downloaded into ``folder`` (once; a download
    is written to a ``.part`` file and renamed when its sha256 is right; an archive of
    another project or version in ``folder`` is not taken for it).

    Raises:
        SdistError: If it cannot be found or fetched, or its sha256 differs.
    """
    archives = _archives(folder, project, version)
    if len(archives) == 1:
        return archives[0]
    index = os.environ.get("PIP_INDEX_URL", PYPI).rstrip("/")
    page_url = f"{index}/{canonicalize_name(project)}/"
    try:
        request = urllib.request.Request(page_url, headers={"Accept": ACCEPT})
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            if JSON_PAGE not in response.headers.get("Content-Type", ""):
                return _pip_download(project, version, folder)
            page = json.load(response)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise SdistError(f"cannot read {page_url}: {error}") from error
    url, digest, filename = sdist_link(page, project, version)
    url = urllib.parse.urljoin(page_url, url)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f"{Path(filename).name}.part"
    hasher = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response, partial.open("wb") as out:
            while chunk := response.read(1 << 20):
                hasher.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        partial.unlink(missing_ok=True)
        raise SdistError(f"cannot download {url}: {error!r}") from error
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if hasher.hexdigest() != digest:
        partial.unlink()
        raise SdistError(f"{url}: sha256 {hasher.hexdigest()}, the index says {digest}")
    return partial.rename(folder / Path(filename).name)


def _archives(folder: Path, project: str, version: str) -> list[Path]:
    """The downloaded sdists of ``project==version`` in ``folder`` (not an unfinished
    ``.part`` file)."""
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if _is_sdist_of(path.name, project, version))


def _is_sdist_of(filename: str, project: str, version: str) -> bool:
    try:
        name, file_version = parse_sdist_filename(filename)
        return (name, file_version) == (canonicalize_name(project), Version(version))
    except (InvalidSdistFilename, InvalidVersion):
        return False  # a .part file, a wheel, or a file named otherwise


def _pip_download(project: str, version: str, folder: Path) -> Path:
    """``pip download`` of the sdist, for an index without the JSON simple API."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    command += [f"{project}=={version}", "-d", str(folder), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    archives = _archives(folder, project, version)
    if done.returncode or len(archives) != 1:
        raise SdistError(
            f"pip download of {project}=={version} failed (exit {done.returncode}): "
            f"{done.stderr.strip()[-800:]}"
        )
    return archives[0]


def unpack(archive: Path, tree: Path) -> Path:
    """Unpack ``archive`` (``.zip`` or a tarball) as ``tree``: its single top folder, or
    everything when there are several. Returns ``tree``."""
    tree.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tree.parent, ignore_cleanup_errors=True) as scratch:
        try:
            if archive.name.endswith(".zip"):
                with zipfile.ZipFile(archive) as opened:
                    opened.extractall(scratch)
            else:
                with tarfile.open(archive) as opened:
                    opened.extractall(scratch, filter="data")
        except (OSError, EOFError, ValueError, tarfile.TarError, zipfile.BadZipFile) as error:
            raise SdistError(f"cannot unpack {archive}: {error}") from error
        tops = list(Path(scratch).iterdir())
        (tops[0] if len(tops) == 1 and tops[0].is_dir() else Path(scratch)).rename(tree)
    return tree
