"""No module of cobe imports itself back through another: the layering (docs/ARCHITECTURE.md, lint-imports)
keeps packages in order, and this keeps modules within a package in order too."""

from __future__ import annotations

import grimp


def test_no_module_of_cobe_is_part_of_an_import_circle():
    """Every import inside cobe counts, those under TYPE_CHECKING included: a circle is one that a later
    edit turns into an import error at start-up, whichever side loads first."""
    graph = grimp.build_graph("cobe", include_external_packages=False)
    circles = sorted(
        " -> ".join([module, *graph.find_shortest_chain(importer=imported, imported=module)])
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if graph.chain_exists(importer=imported, imported=module)
    )
    assert circles == []
