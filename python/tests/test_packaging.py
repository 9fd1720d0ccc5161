"""The wheel pip builds (python/buildsupport/csvidx_backend.py): a valid
wheel whose package works on its own, away from the source tree."""

import base64
import csv
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO

BACKEND_DIR = os.path.join(REPO, "python", "buildsupport")


@pytest.fixture(scope="module")
def backend():
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    sys.path.insert(0, BACKEND_DIR)
    try:
        import csvidx_backend  # pylint: disable=import-outside-toplevel
    finally:
        sys.path.remove(BACKEND_DIR)
    return csvidx_backend


def test_wheel(backend, tmp_path):
    assert backend.get_requires_for_build_wheel() == []  # nothing to download: offline installs work
    name = backend.build_wheel(str(tmp_path / "dist"))
    assert name.startswith("csvidx-") and name.endswith(".whl") and "-py3-none-" in name
    wheel = tmp_path / "dist" / name
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert {"csvidx/__init__.py", "csvidx/_api.py", "csvidx/_native.py", "csvidx/_libcsvidx.so"} <= names
        dist_info = [n for n in names if n.endswith(".dist-info/RECORD")][0].rsplit("/", 1)[0]
        metadata = z.read(f"{dist_info}/METADATA").decode()
        assert "Name: csvidx" in metadata and "Version: " in metadata
        assert "Root-Is-Purelib: false" in z.read(f"{dist_info}/WHEEL").decode()
        record = z.read(f"{dist_info}/RECORD").decode().splitlines()
        assert len(record) == len(names)
        for line in record:
            path, digest, size = line.rsplit(",", 2)
            if path.endswith("RECORD"):
                continue
            data = z.read(path)
            assert int(size) == len(data)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        z.extractall(tmp_path / "site")

    data = tmp_path / "t.csv"
    with open(data, "w", newline="") as f:
        csv.writer(f).writerows([["id", "key"], [1, "007"], [2, "7"], [3, "007"]])
    code = ("import csvidx, sys; csvidx.build(sys.argv[1], key='key'); "
            "print(csvidx.__file__); print(csvidx.Index(sys.argv[1]).get_bytes('007').decode(), end='')")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    env.pop("CSVIDX_LIBRARY", None)
    out = subprocess.run([sys.executable, "-c", code, str(data)], env=env, cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[0].startswith(str(tmp_path / "site"))
    assert out[1:] == ["1,007", "3,007"]


def test_no_sdist(backend, tmp_path):
    with pytest.raises(RuntimeError, match="no sdist"):
        backend.build_sdist(str(tmp_path))
