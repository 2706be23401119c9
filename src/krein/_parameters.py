"""The constructor convention shared by the estimators and the kernels.

scikit-learn's convention, which :class:`krein.kernels.Kernel` follows too: ``__init__`` records each
argument unchanged under its own name (validation and conversion wait for ``fit``, or for the kernel's
call), and ``get_params`` reads the arguments back by the names of the ``__init__`` signature. Each class
writes its signature out in full (it is the public API, and what ``get_params`` reads);
:func:`store_parameters` is the body every such ``__init__`` shares.
"""

from __future__ import annotations

import inspect

__all__ = ["parameter_names", "store_parameters"]


def parameter_names(cls):
    """The argument names of ``cls.__init__``, in order, without ``self``, ``*args`` and ``**kwargs``."""
    signature = inspect.signature(cls.__init__)
    return [
        p.name
        for p in signature.parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def store_parameters(obj, arguments):
    """Record the arguments of an ``__init__`` on ``obj``, each unchanged under its own name.

    Call it as ``store_parameters(self, locals())`` before ``__init__`` binds any other local name,
    so that ``arguments`` holds exactly the arguments (besides ``self``, and ``__class__`` where the
    method uses ``super()``, which are left out). A subclass whose ``__init__`` adds arguments and
    passes the others on to ``super().__init__`` records both sets, as assignments written out would.
    """
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(obj, name, value)
