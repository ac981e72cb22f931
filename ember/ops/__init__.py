"""The op library: one module per family; each op's forward and backward side by side."""
