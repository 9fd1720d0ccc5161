"""A PEP 517 build backend for csvidx that needs nothing but Go and Python.

``pip install ./python`` must work offline, and the interpreters here do not
all have the ``wheel`` package that setuptools (before 70.1) needs to build
any wheel: pyenv's Python 3.11 has setuptools 65.5 and no wheel. So this
backend, in the tree (pyproject.toml: ``backend-path``) and with no build
requirements, does the two things a wheel of csvidx takes itself:

1. ``go build -buildmode=c-shared`` of python/capi, from the Go module that
   contains this directory (the repository root), into the package;
2. a wheel: a zip of the package with METADATA, WHEEL and RECORD (PEP 427),
   tagged py3-none-PLATFORM because it holds a native library (ctypes needs
   no particular Python ABI).

``pip install -e ./python`` (PEP 660) builds the library in place, as
build.sh does, and installs a .pth file that puts python/ on sys.path.

There is no sdist: the package cannot be built apart from the Go module
(build_sdist says so). Environment: GO (the go command, default "go");
CSVIDX_GOFLAGS (extra go build flags).
"""

import base64
import hashlib
import io
import os
import shlex
import subprocess
import sys
import sysconfig
import zipfile

NAME = "csvidx"
SUMMARY = "The rows of one key of a huge CSV file in about a millisecond, as a pandas DataFrame"
REQUIRES_PYTHON = ">=3.8"
LIBRARY = "_libcsvidx.so"

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)  # python/
PACKAGE = os.path.join(PROJECT, NAME)


def _version():
    with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=", 1)[1].strip().strip("\"'")
    raise RuntimeError("csvidx/__init__.py has no __version__")


def _module_root():
    """The directory of the go.mod above python/: the Go module to build."""
    d = PROJECT
    while True:
        if os.path.exists(os.path.join(d, "go.mod")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            raise RuntimeError(f"csvidx: no go.mod above {PROJECT}: build from a checkout of the csvidx repository")
        d = parent


def _go_build(out):
    root = _module_root()
    go = os.environ.get("GO", "go")
    # The CLI's CPU profile (profile-guided optimization) serves the library too: the same
    # scan, sort and lookup code. go build applies it only to cmd/csvidx unless told.
    pgo = os.path.join("cmd", "csvidx", "default.pgo")
    pgo_flags = ["-pgo=" + pgo] if os.path.exists(os.path.join(root, pgo)) else []
    cmd = [go, "build", "-buildmode=c-shared", "-trimpath", *pgo_flags, *shlex.split(os.environ.get("CSVIDX_GOFLAGS", "")),
           "-o", out, "./" + os.path.relpath(os.path.join(PROJECT, "capi"), root).replace(os.sep, "/")]
    env = dict(os.environ, CGO_ENABLED="1")
    print("csvidx: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    try:
        subprocess.run(cmd, cwd=root, env=env, check=True)
    except FileNotFoundError:
        raise RuntimeError(f"csvidx: building the package needs the Go toolchain: {go!r} is not on PATH") from None
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"csvidx: go build failed with status {e.returncode} (a C compiler is needed: cgo)") from None
    header = os.path.splitext(out)[0] + ".h"
    if os.path.exists(header):
        os.remove(header)


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{plat}"


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            f"Requires-Python: {REQUIRES_PYTHON}\nProvides-Extra: pandas\n"
            'Requires-Dist: pandas; extra == "pandas"\n').encode()


def _wheel_file():
    return (f"Wheel-Version: 1.0\nGenerator: csvidx_backend\nRoot-Is-Purelib: false\nTag: {_tag()}\n").encode()


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_wheel(wheel_directory, files):
    """Write a wheel of files (archive name -> bytes) with its dist-info and
    return its file name."""
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    files = dict(files)
    files[f"{dist_info}/METADATA"] = _metadata()
    files[f"{dist_info}/WHEEL"] = _wheel_file()
    record_name = f"{dist_info}/RECORD"
    record = io.StringIO()
    for name, data in files.items():
        record.write(f"{name},{_digest(data)},{len(data)}\n")
    record.write(f"{record_name},,\n")
    files[record_name] = record.getvalue().encode()
    filename = f"{NAME}-{version}-{_tag()}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def _package_files():
    files = {}
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(PACKAGE, name), "rb") as f:
                files[f"{NAME}/{name}"] = f.read()
    return files


# --- PEP 517 hooks ---

def get_requires_for_build_wheel(config_settings=None):  # pylint: disable=unused-argument
    return []


def get_requires_for_build_editable(config_settings=None):  # pylint: disable=unused-argument
    return []


def get_requires_for_build_sdist(config_settings=None):  # pylint: disable=unused-argument
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # pylint: disable=unused-argument
    os.makedirs(wheel_directory, exist_ok=True)
    lib = os.path.join(wheel_directory, f".{LIBRARY}.{os.getpid()}")
    try:
        _go_build(lib)
        with open(lib, "rb") as f:
            so = f.read()
    finally:
        for p in (lib, os.path.splitext(lib)[0] + ".h"):
            if os.path.exists(p):
                os.remove(p)
    files = _package_files()
    files[f"{NAME}/{LIBRARY}"] = so
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # pylint: disable=unused-argument
    os.makedirs(wheel_directory, exist_ok=True)
    _go_build(os.path.join(PACKAGE, LIBRARY))
    return _write_wheel(wheel_directory, {f"_{NAME}_editable.pth": (PROJECT + "\n").encode()})


def build_sdist(sdist_directory, config_settings=None):  # pylint: disable=unused-argument
    raise RuntimeError("csvidx has no sdist: its native library is built from the Go module around python/; "
                       "install from a checkout with pip install ./python")
