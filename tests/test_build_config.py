"""torch.__config__ and torch.storage: the build description and module names scripts
print or refer to."""
import torch

import ember


def test_show_describes_the_build():
    text = ember.__config__.show()
    assert text.startswith(f"ember {ember.version.ember_version} (as torch 2.13.0+cpu) built with:")
    assert "  - NumPy " in text and "kernels in use: " in text and text.endswith("\n")
    assert isinstance(torch.__config__.show(), str)


def test_parallel_info_reports_the_thread_settings():
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        text = ember.__config__.parallel_info()
    finally:
        ember.set_num_threads(before)
    assert text.startswith("ATen/Parallel:\n\tat::get_num_threads() : 1\n")
    assert torch.__config__.parallel_info().startswith("ATen/Parallel:\n\tat::get_num_threads()")


def test_storage_module_names_the_storage_classes():
    assert ember.storage.UntypedStorage is ember.UntypedStorage
    assert ember.storage.TypedStorage is ember.TypedStorage
    assert {"UntypedStorage", "TypedStorage"} <= set(dir(torch.storage))
