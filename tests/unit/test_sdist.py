"""The benchmarks' sdist fetch (``benchmarks/_sdist.py``), offline: the index and the
file server are fakes, nothing is downloaded."""

from __future__ import annotations

import hashlib
import io
import sys
import tarfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _sdist

PAGE = {
    "files": [
        {"filename": "demo_pkg-1.0-py3-none-any.whl", "url": "w", "hashes": {"sha256": "a"}},
        {"filename": "demo_pkg-1.0.zip", "url": "z", "hashes": {"sha256": "b"}},
        {"filename": "demo_pkg-1.0.tar.gz", "url": "t", "hashes": {"sha256": "C"}},
        {"filename": "demo_pkg-1.1.tar.gz", "url": "n", "hashes": {"sha256": "d"}},
    ]
}


def test_the_sdist_link_is_the_tarball_of_that_version() -> None:
    assert _sdist.sdist_link(PAGE, "Demo.Pkg", "1.0") == ("t", "c", "demo_pkg-1.0.tar.gz")


def test_a_yanked_sdist_is_taken_only_when_nothing_else_is_there() -> None:
    files = [dict(file, yanked=file["url"] == "t") for file in PAGE["files"]]
    assert _sdist.sdist_link({"files": files}, "demo-pkg", "1.0")[0] == "z"
    only = [dict(PAGE["files"][2], yanked="broken")]
    assert _sdist.sdist_link({"files": only}, "demo-pkg", "1.0")[0] == "t"


@pytest.mark.parametrize(
    ("page", "version", "message"),
    [
        (PAGE, "2.0", "no sdist of demo-pkg==2.0"),
        ({"files": "oops"}, "1.0", "not a PEP 691 project page"),
        ({"nothing": []}, "1.0", "not a PEP 691 project page"),
        ({"files": [dict(PAGE["files"][2], hashes=None)]}, "1.0", "no sha256"),
        (PAGE, "not a version!", "not a PEP 691 project page"),
    ],
)
def test_a_bad_page_or_version_is_an_sdist_error(page, version, message) -> None:
    with pytest.raises(_sdist.SdistError, match=message):
        _sdist.sdist_link(page, "demo-pkg", version)


class _Response(io.BytesIO):
    def __init__(self, body: bytes, content_type: str = "", fail_after: int | None = None):
        super().__init__(body)
        self.headers = {"Content-Type": content_type}
        self.fail_after = fail_after

    def read(self, size: int = -1) -> bytes:
        if self.fail_after is not None and self.tell() >= self.fail_after:
            raise KeyboardInterrupt  # the person stops the download
        return super().read(size if self.fail_after is None else 4)


def _tarball() -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        info = tarfile.TarInfo("demo_pkg-1.0/demo.py")
        info.size = 6
        archive.addfile(info, io.BytesIO(b"x = 1\n"))
    return data.getvalue()


def _serve(monkeypatch, body: bytes, digest: str, fail_after: int | None = None) -> None:
    import json

    page = {
        "files": [
            {
                "filename": "demo_pkg-1.0.tar.gz",
                "url": "/files/demo_pkg-1.0.tar.gz?token=1",
                "hashes": {"sha256": digest},
            }
        ]
    }

    def urlopen(request, timeout):
        if getattr(request, "full_url", request).endswith("/demo-pkg/"):
            return _Response(json.dumps(page).encode(), _sdist.JSON_PAGE)
        return _Response(body, fail_after=fail_after)

    monkeypatch.setattr(_sdist.urllib.request, "urlopen", urlopen)
    monkeypatch.setenv("PIP_INDEX_URL", "https://index.example/simple")


def test_a_download_is_named_from_the_page_checked_and_unpacked(tmp_path, monkeypatch) -> None:
    body = _tarball()
    _serve(monkeypatch, body, hashlib.sha256(body).hexdigest().upper())
    archive = _sdist.download_sdist("demo-pkg", "1.0", tmp_path / "sdist")
    assert archive.name == "demo_pkg-1.0.tar.gz"  # not the URL's "?token=1"
    tree = _sdist.unpack(archive, tmp_path / "src" / "demo")
    assert (tree / "demo.py").read_text() == "x = 1\n"


def test_a_wrong_sha256_leaves_nothing_behind(tmp_path, monkeypatch) -> None:
    _serve(monkeypatch, _tarball(), "0" * 64)
    with pytest.raises(_sdist.SdistError, match="sha256"):
        _sdist.download_sdist("demo-pkg", "1.0", tmp_path / "sdist")
    assert not list((tmp_path / "sdist").iterdir())


def test_an_interrupted_download_is_not_taken_for_the_archive(tmp_path, monkeypatch) -> None:
    body = _tarball()
    _serve(monkeypatch, body, hashlib.sha256(body).hexdigest(), fail_after=8)
    with pytest.raises(KeyboardInterrupt):
        _sdist.download_sdist("demo-pkg", "1.0", tmp_path / "sdist")
    _serve(monkeypatch, body, hashlib.sha256(body).hexdigest())
    archive = _sdist.download_sdist("demo-pkg", "1.0", tmp_path / "sdist")
    assert archive.read_bytes() == body


@pytest.mark.parametrize("other", ["other_pkg-1.0.tar.gz", "demo_pkg-0.9.tar.gz"])
def test_an_archive_of_another_project_or_version_is_not_taken(
    tmp_path, monkeypatch, other
) -> None:
    folder = tmp_path / "sdist"
    folder.mkdir()
    (folder / other).write_bytes(b"not the archive asked for")
    body = _tarball()
    _serve(monkeypatch, body, hashlib.sha256(body).hexdigest())
    archive = _sdist.download_sdist("demo-pkg", "1.0", folder)
    assert (archive.name, archive.read_bytes()) == ("demo_pkg-1.0.tar.gz", body)
    assert _sdist.download_sdist("demo-pkg", "1.0", folder) == archive  # then reused


def test_a_truncated_archive_is_an_sdist_error(tmp_path) -> None:
    archive = tmp_path / "demo_pkg-1.0.tar.gz"
    archive.write_bytes(_tarball()[:40])
    with pytest.raises(_sdist.SdistError, match="cannot unpack"):
        _sdist.unpack(archive, tmp_path / "src" / "demo")
