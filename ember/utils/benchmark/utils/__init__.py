"""The modules behind ember.utils.benchmark (torch.utils.benchmark.utils's layout)."""
