"""Build glue that pyproject.toml cannot express.

The wheel carries libquire.so inside the package (as pypdfium2 carries libpdfium), so it
must be platform-specific: `bdist_wheel` is told the wheel is not pure and is tagged
`py3-none-<platform>` (any Python 3: the binding uses ctypes, not the C API of Python).
The build fails early, with a clear message, when the library has not been built.

The version is the one of the C header, QUIRE_VERSION_STRING in include/quire.h, so that it
is written in one place: read from the header two levels up (the repository), or from
PKG-INFO when building from an unpacked source distribution, or from $QUIRE_VERSION.
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
    pkg_info = os.path.join(HERE, "PKG-INFO")
    if os.path.isfile(pkg_info):
        with open(pkg_info, encoding="utf-8") as f:
            m = re.search(r"^Version: (\S+)", f.read(), re.M)
        if m:
            return m.group(1)
    sys.exit(
        "error: cannot tell Quire's version: build from the repository (it is "
        "QUIRE_VERSION_STRING in include/quire.h), or set QUIRE_VERSION"
    )


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
    version=header_version(),
    package_data={"quire": [LIBRARY_NAME, "py.typed"]},
    cmdclass={"bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
)
