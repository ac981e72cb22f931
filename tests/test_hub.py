"""ember.hub against torch.hub: cache directories, load_state_dict_from_url (file:// URLs
and a pre-populated cache; no network here), download_url_to_file and local hubconf.py."""
import hashlib
import os
import urllib.error

import numpy as np
import pytest
import torch
import torch.hub

import ember
import ember.hub

HUBCONF = '''
dependencies = ["numpy"]


def tiny(scale=1.0):
    """A tiny entry point."""
    return {"scale": scale}


def _private():
    pass

VALUE = 3
'''


@pytest.fixture
def hub_dirs(monkeypatch):
    """Both hubs start with no set_dir choice, and get it back afterwards."""
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setattr(ember.hub, "_hub_dir", None)


@pytest.mark.parametrize("env", [{}, {"TORCH_HOME": "/tmp/th"}, {"XDG_CACHE_HOME": "/tmp/xdg"},
                                 {"TORCH_HOME": "~/th", "XDG_CACHE_HOME": "/tmp/xdg"}])
def test_get_dir_follows_the_environment(hub_dirs, monkeypatch, env):
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert ember.hub.get_dir() == torch.hub.get_dir()


def test_set_dir_expands_user(hub_dirs):
    for hub in (torch.hub, ember.hub):
        hub.set_dir("~/my_hub")
    assert ember.hub.get_dir() == torch.hub.get_dir() == os.path.expanduser("~/my_hub")


def saved_weights(path):
    weights = {"w": np.arange(6.0, dtype=np.float32).reshape(2, 3), "b": np.ones(2)}
    torch.save({k: torch.from_numpy(v) for k, v in weights.items()}, path)
    return weights


def sha256_of(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_load_state_dict_from_file_url(tmp_path, capsys):
    source = tmp_path / "weights.pth"
    weights = saved_weights(source)
    digest = sha256_of(source)
    named = tmp_path / f"net-{digest[:8]}.pth"
    os.rename(source, named)
    model_dir = tmp_path / "cache"
    state = ember.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(model_dir),
                                               check_hash=True, progress=False)
    assert sorted(state) == ["b", "w"]
    for key, value in weights.items():
        assert isinstance(state[key], ember.Tensor)
        np.testing.assert_array_equal(state[key].numpy(), value)
    assert (model_dir / named.name).exists()
    assert "Downloading" in capsys.readouterr().out


def test_cached_file_is_served_without_downloading(tmp_path, hub_dirs):
    ember.hub.set_dir(str(tmp_path))
    checkpoints = tmp_path / "checkpoints"
    checkpoints.mkdir()
    weights = saved_weights(checkpoints / "model.pth")
    # The URL cannot be reached; the cached file of the same name is used instead.
    state = ember.hub.load_state_dict_from_url("http://127.0.0.1:9/some/model.pth")
    np.testing.assert_array_equal(state["w"].numpy(), weights["w"])
    named = ember.hub.load_state_dict_from_url("http://127.0.0.1:9/x.pth", file_name="model.pth",
                                               map_location="cpu", weights_only=True)
    np.testing.assert_array_equal(named["b"].numpy(), weights["b"])


def test_hash_mismatch_is_refused_like_torch(tmp_path):
    source = tmp_path / "net-deadbeef.pth"
    saved_weights(source)
    for hub, folder in ((torch.hub, "t"), (ember.hub, "e")):
        with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef", got'):
            hub.load_state_dict_from_url(source.as_uri(), model_dir=str(tmp_path / folder),
                                         check_hash=True, progress=False)
        assert os.listdir(tmp_path / folder) == []      # no partial file left behind


def test_download_url_to_file(tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(bytes(range(256)) * 1000)
    target = tmp_path / "copy.bin"
    ember.hub.download_url_to_file(source.as_uri(), str(target),
                                   hash_prefix=sha256_of(source)[:10], progress=False)
    assert target.read_bytes() == source.read_bytes()


def test_unreachable_url_raises_a_urllib_error(tmp_path):
    with pytest.raises(urllib.error.URLError):
        ember.hub.download_url_to_file("http://127.0.0.1:9/nothing.pth", str(tmp_path / "x"))
    assert os.listdir(tmp_path) == []


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "hubconf.py").write_text(HUBCONF)
    return str(tmp_path)


def test_local_load_list_help(repo):
    for hub in (torch.hub, ember.hub):
        assert hub.load(repo, "tiny", 2.0, source="local") == {"scale": 2.0}
        assert hub.load(repo, "tiny", source="LOCAL", scale=3) == {"scale": 3}
    assert ember.hub.list(repo, source="local") == ["tiny"]
    assert ember.hub.help(repo, "tiny", source="local") == "A tiny entry point."


def test_local_errors_match_torch(repo, tmp_path):
    cases = [((repo, "nope"), RuntimeError, "Cannot find callable nope in hubconf"),
             ((repo, "VALUE"), RuntimeError, "Cannot find callable VALUE in hubconf"),
             ((repo, 3), ValueError, "Invalid input: model should be a string of function name")]
    for args, error, message in cases:
        for hub in (torch.hub, ember.hub):
            with pytest.raises(error, match=message):
                hub.load(*args, source="local")
    for hub in (torch.hub, ember.hub):
        with pytest.raises(ValueError, match='Unknown source: "svn". Allowed values: "github" | '
                           '"local".'):
            hub.load(repo, "tiny", source="svn")
    (tmp_path / "hubconf.py").write_text("dependencies = ['no_such_package_xyz']\n"
                                         "def tiny():\n    pass\n")
    for hub in (torch.hub, ember.hub):
        with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_xyz"):
            hub.load(str(tmp_path), "tiny", source="local")


def test_github_needs_explicit_trust():
    with pytest.raises(NotImplementedError, match="trust_repo"):
        ember.hub.load("owner/repo", "tiny")


def test_github_uses_a_cached_checkout(tmp_path, hub_dirs):
    ember.hub.set_dir(str(tmp_path))
    checkout = tmp_path / "owner_repo_v1"
    checkout.mkdir()
    (checkout / "hubconf.py").write_text(HUBCONF)
    assert ember.hub.load("owner/repo:v1", "tiny", trust_repo=True, verbose=False) == \
        {"scale": 1.0}


def test_github_offline_raises_instead_of_hanging(tmp_path, hub_dirs, monkeypatch):
    ember.hub.set_dir(str(tmp_path))
    monkeypatch.setattr(ember.hub, "DOWNLOAD_TIMEOUT", 5.0)
    with pytest.raises(urllib.error.URLError):
        ember.hub.load("owner/repo", "tiny", trust_repo=True)


def test_model_zoo_load_url_is_hubs_download(tmp_path):
    import torch.utils.model_zoo
    import ember.utils.model_zoo
    source = tmp_path / "weights.pth"
    weights = saved_weights(source)
    state = ember.utils.model_zoo.load_url(source.as_uri(), model_dir=str(tmp_path / "cache"),
                                           progress=False)
    np.testing.assert_array_equal(state["w"].numpy(), weights["w"])
    assert torch.utils.model_zoo.load_url.__name__ == ember.utils.model_zoo.load_url.__name__
