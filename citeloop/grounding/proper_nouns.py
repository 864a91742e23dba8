"""Names of languages, runtimes, platforms and products that are spelled like code.

Prose about code names the tools around it, and many of their names are CamelCase:
"CPython caches nothing here", "on GitHub", "a PostgreSQL column". Written bare (not in
backticks), such a name is the product, not an identifier of the code base: it is no
mention of a task (so never a core entity) and no name an answer invents (a played
answer was rejected for writing "CPython" in its prose). In backticks it is code as
written, like any name. A class of the code base may still bear one (conan's ``CMake``
class wraps CMake): a task's bare product name hints at such a class, as a capitalized
word does, without making it core (a played answer about "the CMake variable" of a
toolchain block had been asked to cite conan's build helper ``CMake``).

Only names that are proper nouns first are listed: not ones a code base may well give a
class (``WebSocket``, ``DataFrame``), nor Python libraries (``NumPy``): an answer naming
a library is grounded by the graph's imports when the code imports it, and otherwise
names code the code base does not use.
"""

from __future__ import annotations

PROPER_NOUNS: frozenset[str] = frozenset(
    {
        # languages, runtimes and their package index
        "CPython",
        "PyPy",
        "IronPython",
        "MicroPython",
        "IPython",
        "JavaScript",
        "TypeScript",
        "CoffeeScript",
        "PyPI",
        "LaTeX",
        # markup and document formats, and their tools
        "reST",
        "reStructuredText",
        "TeX",
        "BibTeX",
        "XeLaTeX",
        "LuaLaTeX",
        "MathJax",
        "KaTeX",
        "MyST",
        "CommonMark",
        "AsciiDoc",
        # operating systems and shells
        "macOS",
        "iOS",
        "iPadOS",
        "watchOS",
        "tvOS",
        "FreeBSD",
        "OpenBSD",
        "NetBSD",
        "PowerShell",
        # hardware and architectures
        "iPhone",
        "iPad",
        "x86_64",
        # build tools, package managers and graphics or compute APIs
        "CMake",
        "QMake",
        "NMake",
        "MSBuild",
        "NuGet",
        "CocoaPods",
        "OpenMP",
        "OpenGL",
        "OpenCL",
        "WebGL",
        "WebAssembly",
        "WebKit",
        "DirectX",
        # hosting, editors and services
        "VSCode",
        "GitHub",
        "GitLab",
        "YouTube",
        "PyCharm",
        "IntelliJ",
        "JupyterLab",
        "CircleCI",
        "AppVeyor",
        "OpenAI",
        "ChatGPT",
        # databases, protocols and formats
        "PostgreSQL",
        "MySQL",
        "SQLite",
        "MongoDB",
        "MariaDB",
        "NoSQL",
        "GraphQL",
        "OpenAPI",
        "OAuth",
        "OAuth2",
        "IPv4",
        "IPv6",
        "gRPC",
        "OpenSSL",
        "LibreSSL",
    }
)
"""CamelCase names that, written bare, name a product, not code."""
