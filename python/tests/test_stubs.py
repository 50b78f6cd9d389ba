"""The hand-kept stubs of the extension (`detour/_detour.pyi`) match the
extension itself: the same functions, each with the same parameters
(names, kinds, defaults), the same exception classes and bases, the same
module constants. A function added or changed in crates/detour-py without
its stub fails here."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import detour._detour as ext

STUB = Path(ext.__file__).with_name("_detour.pyi")  # shipped beside the extension


def _stub():
    tree = ast.parse(STUB.read_text())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: [ast.unparse(b) for b in n.bases] for n in tree.body if isinstance(n, ast.ClassDef)}
    consts = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    return funcs, classes, consts


def _stub_params(f: ast.FunctionDef) -> list:
    a = f.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    out = [(p.arg, "POSITIONAL_OR_KEYWORD", ast.unparse(d) if d is not None else None) for p, d in zip(pos, defaults)]
    out += [(p.arg, "KEYWORD_ONLY", ast.unparse(d) if d is not None else None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    return out


def _runtime_params(fn) -> list:
    out = []
    for p in inspect.signature(fn).parameters.values():
        d = None if p.default is inspect.Parameter.empty else ("..." if p.default is Ellipsis else repr(p.default))
        out.append((p.name, p.kind.name, d))
    return out


def test_the_stub_lists_exactly_the_extensions_functions_classes_and_constants():
    funcs, classes, consts = _stub()
    public = {n: getattr(ext, n) for n in dir(ext) if not n.startswith("_")}
    assert set(funcs) == {n for n, o in public.items() if callable(o) and not isinstance(o, type)}
    assert set(classes) == {n for n, o in public.items() if isinstance(o, type)}
    assert consts == {n for n, o in public.items() if not callable(o)} | {"__version__"}


def test_every_stub_signature_matches_the_extension():
    funcs, _, _ = _stub()
    for name, f in funcs.items():
        assert _stub_params(f) == _runtime_params(getattr(ext, name)), name


def test_exception_bases_match():
    _, classes, _ = _stub()
    for name, bases in classes.items():
        assert [b.__name__ for b in getattr(ext, name).__bases__] == bases, name
