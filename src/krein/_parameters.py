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
    """Record the arguments of ``obj``'s ``__init__`` on ``obj``, each unchanged under its own name.

    Call it as the whole body of the class's ``__init__``: ``store_parameters(self, locals())``;
    ``arguments`` maps the names of the signature (:func:`parameter_names`) to the values passed.
    """
    for name in parameter_names(type(obj)):
        setattr(obj, name, arguments[name])
