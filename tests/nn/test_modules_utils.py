"""torch.nn.modules.utils and torch.nn.common_types: the helpers third-party layers
import from torch's paths."""

import pytest
import torch
import torch.nn.modules.utils as torch_utils

import ember
import ember.nn.modules.utils as ember_utils


@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("value", [3, (1, 2), [4, 5, 6], torch.Size([7, 8])])
def test_ntuple_parsers_match_torch(name, value):
    assert getattr(ember_utils, name)(value) == getattr(torch_utils, name)(value)
    assert getattr(ember_utils, name).__name__ == getattr(torch_utils, name).__name__


def test_reverse_repeat_tuple_and_list_with_default_match_torch():
    assert ember_utils._reverse_repeat_tuple((1, 2, 3), 2) == \
        torch_utils._reverse_repeat_tuple((1, 2, 3), 2)
    for out_size, defaults in [(5, [1, 2]), ([None, 3], [7, 8, 9]), ([4, None], [1, 2, 3])]:
        assert ember_utils._list_with_default(out_size, defaults) == \
            torch_utils._list_with_default(out_size, defaults)
    for lib in (torch_utils, ember_utils):
        with pytest.raises(ValueError, match="^Input dimension should be at least 3$"):
            lib._list_with_default([1, 2], [5, 6])


def test_consume_prefix_strips_dataparallel_keys_and_metadata():
    results = []
    for lib, utils in ((torch, torch_utils), (ember, ember_utils)):
        state = lib.nn.DataParallel(lib.nn.Sequential(lib.nn.Linear(2, 2))).state_dict()
        utils.consume_prefix_in_state_dict_if_present(state, "module.")
        results.append((list(state), list(state._metadata)))
        lib.nn.Sequential(lib.nn.Linear(2, 2)).load_state_dict(state)
    assert results[0] == results[1]


def test_common_types_exist_as_in_torch():
    import torch.nn.common_types as torch_types
    names = [n for n in vars(torch_types) if n.startswith("_size") or n.startswith("_ratio")
             or n.startswith("_scalar") or n in ("_tensor_list_t", "_maybe_indices_t")]
    assert len(names) > 15
    for name in names:
        assert hasattr(ember.nn.common_types, name), name
