"""Build glue that pyproject.toml cannot express.

The wheel carries libquire.so inside the package (as pypdfium2 carries libpdfium), so it
must be platform-specific: `bdist_wheel` is told the wheel is not pure and is tagged
`py3-none-<platform>` (any Python 3: the binding uses ctypes, not the C API of Python).
The build fails early, with a clear message, when the library has not been built.

The version is the one of the C header, QUIRE_VERSION_STRING in include/quire.h: the build
stops when pyproject.toml says another. The header's version is read two levels up (the
repository), or taken from $QUIRE_VERSION (`make wheel` builds in a copy and passes it).
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY_NAME = {"darwin": "libquire.dylib", "win32": "quire.dll"}.get(sys.platform, "libquire.so")
LIBRARY = os.path.join(HERE, "quire", LIBRARY_NAME)

if not os.path.isfile(LIBRARY):
    sys.exit(
        "error: %s is missing. Run `make` at the root of the Quire repository first: it "
        "builds the library and copies it into bindings/python/quire/, which this package "
        "ships." % LIBRARY
    )


def header_version():
    if os.environ.get("QUIRE_VERSION"):
        return os.environ["QUIRE_VERSION"]
    header = os.path.join(HERE, "..", "..", "include", "quire.h")
    if os.path.isfile(header):
        with open(header, encoding="utf-8") as f:
            m = re.search(r'^#define QUIRE_VERSION_STRING "([^"]+)"', f.read(), re.M)
        if m:
            return m.group(1)
        sys.exit("error: %s has no QUIRE_VERSION_STRING" % header)
    return None  # an unpacked source distribution: pyproject.toml's version was checked


def check_version():
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
    declared = m.group(1) if m else None
    wanted = header_version()
    if wanted is not None and declared != wanted:
        sys.exit(
            "error: bindings/python/pyproject.toml says version %s, but include/quire.h says "
            "%s (QUIRE_VERSION_STRING): make them the same" % (declared, wanted)
        )


check_version()


from setuptools import Distribution, setup  # noqa: E402  (after the check, so that it comes first)

try:  # setuptools >= 70.1 has its own bdist_wheel
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # older setuptools: the one of the `wheel` package
    from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    """Has a native part (the library), so installs into platlib, as auditwheel requires."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel that carries a native library, so is tied to a platform but not to a
    Python version or ABI."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    package_data={"quire": [LIBRARY_NAME, "py.typed"]},
    cmdclass={"bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
)
