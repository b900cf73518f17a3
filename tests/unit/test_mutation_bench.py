"""bench/mutation.py's list of equivalent mutants is well formed and names real modules, and a
survivor is marked by the entry of its own module only."""
import importlib.util

from tests.conftest import ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("mutation_bench", ROOT / "bench" / "mutation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_equivalence_entry_names_a_module_a_mutant_and_a_reason():
    bench = _bench()
    known = bench.equivalents()
    assert len(known) >= 50
    for module, text, why in known:
        assert (ROOT / "exporter" / "aix_exporter" / f"{module}.py").is_file(), module
        assert text.strip() and len(why) > 20, (module, text)
    assert len({(m, t) for m, t, _ in known}) == len(known), "duplicate entries"


def test_a_survivor_is_explained_only_by_an_entry_of_its_module():
    bench = _bench()
    known = [("parsers/splat", "lru_cache(maxsize=65)", "a cache size changes speed, never a result")]
    used = set()
    change = "L103: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)"
    assert bench.explain("parsers/splat", change, known, used) == "a cache size changes speed, never a result"
    assert used == {0}
    assert bench.explain("parsers/svmon_p", change, known, set()) is None
    # the line number is not part of the match: an entry survives code moving up or down
    assert bench.explain("parsers/splat", "L7: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)", known, set())
    assert bench.explain("parsers/splat", "L103: - x = 1 / + x = 2", known, set()) is None
