"""cobe: run the CoBe benchmark of conversational counterfactual text editing.

    import cobe
    data = cobe.load_dataset("builtin:starter")
    summary = cobe.run_eval("openai/gpt-5.4", judge="anthropic/claude-opus-4-7")  # the bundled starter set
    table = cobe.leaderboard(summary.run_dir)      # a pandas DataFrame
    rows = cobe.results(summary.run_dir)           # every response with its verdicts

Names load on first use, so `import cobe` pulls in neither pandas nor any provider SDK; they are listed
once, in `__init__.pyi`. `__version__` too: reading it loads importlib.metadata, the slowest import of
the `cobe` command's first moments, and a Ctrl-C then is only handled once cobe.cli is imported.
"""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__)
