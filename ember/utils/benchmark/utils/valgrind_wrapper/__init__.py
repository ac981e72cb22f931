"""Callgrind support of torch.utils.benchmark (only its names: see timer_interface)."""
