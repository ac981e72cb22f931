"""Side-by-side benchmarks: the same torch-API workload code run on torch and on ember."""
