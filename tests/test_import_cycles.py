"""No import cycle in the library, not even one hidden in a function-level import.

The layers (agents -> training -> serving -> web) are import-linter contracts in `make lint`; this test
adds what they cannot say: inside a layer, modules form no cycle either (a function-level import that
closes a cycle is counted like any other; imports for type checking only are not).
"""

import grimp
import networkx as nx

LIBRARY = ("agents", "training", "serving")


def test_the_library_has_no_import_cycle():
    graph = grimp.build_graph(*LIBRARY, exclude_type_checking_imports=True)
    imports = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            imports.add_edge(module, imported)
    cycles = [sorted(c) for c in nx.strongly_connected_components(imports) if len(c) > 1]
    assert cycles == [], cycles
