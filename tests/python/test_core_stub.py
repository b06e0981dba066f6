"""The type stub ``_core.pyi`` describes exactly what the compiled module exports."""
import ast
from pathlib import Path

import slingsim
from slingsim import _core

STUB = Path(slingsim.__file__).with_name("_core.pyi")


def _stub_tree():
    return ast.parse(STUB.read_text())


def _public(names):
    return {n for n in names if not n.startswith("_")}


def test_stub_functions_and_classes_match_the_module():
    tree = _stub_tree()
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    exported = _public(name for name in dir(_core) if callable(getattr(_core, name)))
    assert stubbed == exported


def test_stub_simulation_members_match_the_class():
    stub_class = next(n for n in _stub_tree().body if isinstance(n, ast.ClassDef) and n.name == "Simulation")
    stubbed = _public(n.name for n in stub_class.body if isinstance(n, ast.FunctionDef))
    assert stubbed == _public(dir(_core.Simulation))
