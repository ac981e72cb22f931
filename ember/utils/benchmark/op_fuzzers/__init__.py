"""Ready-made Fuzzers for common op shapes (torch.utils.benchmark.op_fuzzers)."""
