"""Reports: tables, figures, Markdown and self-contained HTML (imports of results made elsewhere: cobe.integrations).

Names load on first use (listed in `__init__.pyi`), so a command that needs one module of the package
does not pay for the rest: pandas, matplotlib and the web apps' dependencies stay unloaded.
"""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__)
