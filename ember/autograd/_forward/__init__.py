"""Forward-mode AD's machinery: dual levels and their recorder (dual.py), the tangent rule
derived from any primitive's backward (generic.py), the registry of native rules (rules.py)
and the native rules themselves (native/, which sits above the ops it differentiates)."""
