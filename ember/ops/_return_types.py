"""The namedtuple types that multi-output ops return (max with a dim, sort, frexp, ...):
they unpack like tuples, have named fields and print like torch's torch.return_types.max."""
from __future__ import annotations

import collections


def _return_type(name: str, fields: tuple):
    """A namedtuple class that prints as torch's `torch.return_types.<name>(...)`."""
    cls = collections.namedtuple(name, fields)
    cls.__qualname__ = "return_types." + name

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    return cls


class return_types:
    """The namedtuple types returned by multi-output ops (torch.return_types)."""
    _pair = ("values", "indices")
    max = _return_type("max", _pair)
    min = _return_type("min", _pair)
    cummax = _return_type("cummax", _pair)
    cummin = _return_type("cummin", _pair)
    sort = _return_type("sort", _pair)
    topk = _return_type("topk", _pair)
    kthvalue = _return_type("kthvalue", _pair)
    median = _return_type("median", _pair)
    nanmedian = _return_type("nanmedian", _pair)
    mode = _return_type("mode", _pair)
    aminmax = _return_type("aminmax", ("min", "max"))
    frexp = _return_type("frexp", ("mantissa", "exponent"))
    histogram = _return_type("histogram", ("hist", "bin_edges"))
    histogramdd = _return_type("histogramdd", ("hist", "bin_edges"))
    geqrf = _return_type("geqrf", ("a", "tau"))
    # linear algebra: torch names torch.linalg's results linalg_<op>, the legacy ones <op>
    slogdet = _return_type("slogdet", ("sign", "logabsdet"))
    linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
    qr = _return_type("qr", ("Q", "R"))
    linalg_qr = _return_type("linalg_qr", ("Q", "R"))
    svd = _return_type("svd", ("U", "S", "V"))
    linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
    linalg_eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
    linalg_eig = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
    linalg_inv_ex = _return_type("linalg_inv_ex", ("inverse", "info"))
    linalg_solve_ex = _return_type("linalg_solve_ex", ("result", "info"))
    linalg_cholesky_ex = _return_type("linalg_cholesky_ex", ("L", "info"))
    linalg_lstsq = _return_type("linalg_lstsq", ("solution", "residuals", "rank",
                                                 "singular_values"))
    linalg_lu_factor = _return_type("linalg_lu_factor", ("LU", "pivots"))
    linalg_lu_factor_ex = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
    linalg_lu = _return_type("linalg_lu", ("P", "L", "U"))
    linalg_ldl_factor = _return_type("linalg_ldl_factor", ("LD", "pivots"))
    linalg_ldl_factor_ex = _return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
    lu_unpack = _return_type("lu_unpack", ("P", "L", "U"))
    triangular_solve = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
