"""The numba twins of the NumPy kernel families in ember/_cpu/ (the ember[fast] extra).

Each module here defines the same functions as its NumPy namesake one level up, with
the same arguments, results and docstring contract. Importing any of them imports numba;
ember/_cpu/kernels.py imports them only when numba is the chosen implementation.
"""
