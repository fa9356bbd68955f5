"""A staticfiles finder for files that ship inside installed Python packages.

plotly.js is served from the plotly wheel itself (plotly/package_data/plotly.min.js) at
static/vendor/plotly.min.js, so the browser always draws with the plotly.js that the Python package
writes figures for, and no 4 MB copy lives in git.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path, PurePosixPath

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.utils import matches_patterns
from django.core import checks
from django.core.files.storage import FileSystemStorage

# static path -> (package, file inside the package); the static path keeps the file's own name.
PACKAGE_FILES: dict[str, tuple[str, str]] = {
    "vendor/plotly.min.js": ("plotly", "package_data/plotly.min.js"),
}


def package_file(package: str, relative: str) -> Path | None:
    """The file inside an installed package, found without importing the package; None when absent."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        candidate = Path(root, relative)
        if candidate.is_file():
            return candidate
    return None


class PackageFileFinder(finders.BaseFinder):
    def __init__(self, *args, files: dict[str, tuple[str, str]] | None = None, **kwargs):
        self.files = dict(PACKAGE_FILES if files is None else files)
        self._located: dict[str, Path | None] = {}

    def _locate(self, static_path: str) -> Path | None:
        if static_path not in self._located:
            self._located[static_path] = package_file(*self.files[static_path])
        return self._located[static_path]

    def check(self, **kwargs):
        errors = []
        for static_path, (package, relative) in self.files.items():
            if self._locate(static_path) is None:
                errors.append(
                    checks.Error(
                        f"static/{static_path} is served from {package}/{relative}, which is not installed.",
                        hint=f"pip install -r requirements.txt (it pins {package}).",
                        id="kopa_site.E002",
                    )
                )
        return errors

    # Django 5.2 still passes the deprecated `all` keyword through **kwargs to old-style finders.
    def find(self, path, find_all=False, **kwargs):
        if kwargs:
            find_all = self._check_deprecated_find_param(find_all=find_all, **kwargs)
        path = str(PurePosixPath(path))
        located = self._locate(path) if path in self.files else None
        if located is None:
            # [] either way, as Django's own finders answer: finders.find() would wrap a None into [None], and
            # WhiteNoise then failed on a missing static file with a 500 instead of a 404.
            return []
        finders.searched_locations.append(str(located.parent))
        return [str(located)] if find_all else str(located)

    def list(self, ignore_patterns):
        for static_path in self.files:
            located = self._locate(static_path)
            if located is None or (ignore_patterns and matches_patterns(static_path, ignore_patterns)):
                continue
            storage = FileSystemStorage(location=located.parent)
            # collectstatic and WhiteNoise put a storage's files under its `prefix`.
            storage.prefix = str(PurePosixPath(static_path).parent)
            yield located.name, storage
