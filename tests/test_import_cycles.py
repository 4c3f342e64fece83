"""No import cycle in the library or in the web layer, not even one hidden in a function-level import.

The layers (agents -> training -> serving -> web) and the web apps' facades are import-linter contracts
in `make lint`; this test adds what they cannot say: inside a layer or an app, modules form no cycle
either (a function-level import that closes a cycle is counted like any other; imports for type
checking only are not). grimp reads the source without importing it, so the web layer needs no Django
settings and this stays in the library pass.
"""

import grimp
import networkx as nx
import pytest

LIBRARY = ("agents", "training", "serving")
WEB = ("mase_web",)


@pytest.mark.parametrize("packages", [LIBRARY, WEB], ids=["library", "web"])
def test_no_import_cycle(packages):
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True)
    imports = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            imports.add_edge(module, imported)
    cycles = [sorted(c) for c in nx.strongly_connected_components(imports) if len(c) > 1]
    assert cycles == [], cycles
