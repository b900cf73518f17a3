"""The OpenMetrics writer behind `simulate --openmetrics` and `import nmon`: timestamps in
seconds, each series together and in time order under one family header, repeats dropped."""
from aix_exporter.tools.openmetrics import Writer, fmt_labels, fmt_value
from tests.lib.checks import simulated_lines


def test_series_grouped_in_time_order_with_second_timestamps(tmp_path):
    out = tmp_path / "h.om"
    with Writer() as w:
        for t in (100.0, 160.0, 220.0):   # snapshots in time order, series interleaved
            w.add("aix_vmstat_cpu_ratio", "gauge", "CPU.", "aix_vmstat_cpu_ratio", {"mode": "user", "job": "aix"}, t / 1000, t)
            w.add("aix_vmstat_cpu_ratio", "gauge", "CPU.", "aix_vmstat_cpu_ratio", {"mode": "sys", "job": "aix"}, 0.5, t)
            w.add("aix_tape_read_bytes", "counter", "Bytes.", "aix_tape_read_bytes_total", {"device": "rmt0"}, t * 1024, t)
        w.add("aix_vmstat_cpu_ratio", "gauge", "CPU.", "aix_vmstat_cpu_ratio", {"mode": "user", "job": "aix"}, 9, 160.0)
        assert w.close(str(out)) == 9 and w.dropped == 1 and (w.first, w.last) == (100.0, 220.0)
    assert out.read_text().splitlines() == [
        "# TYPE aix_vmstat_cpu_ratio gauge", "# HELP aix_vmstat_cpu_ratio CPU.",
        'aix_vmstat_cpu_ratio{job="aix",mode="user"} 0.1 100.000',
        'aix_vmstat_cpu_ratio{job="aix",mode="user"} 0.16 160.000',
        'aix_vmstat_cpu_ratio{job="aix",mode="user"} 0.22 220.000',
        'aix_vmstat_cpu_ratio{job="aix",mode="sys"} 0.5 100.000',
        'aix_vmstat_cpu_ratio{job="aix",mode="sys"} 0.5 160.000',
        'aix_vmstat_cpu_ratio{job="aix",mode="sys"} 0.5 220.000',
        "# TYPE aix_tape_read_bytes counter", "# HELP aix_tape_read_bytes Bytes.",
        'aix_tape_read_bytes_total{device="rmt0"} 102400 100.000',
        'aix_tape_read_bytes_total{device="rmt0"} 163840 160.000',
        'aix_tape_read_bytes_total{device="rmt0"} 225280 220.000',
        "# EOF"]


def test_values_and_labels_are_escaped_and_exact():
    assert fmt_value(2**40) == "1099511627776" and fmt_value(2**53) == "9007199254740992.0"
    assert fmt_value(0.1) == "0.1" and fmt_value(float("nan")) == "NaN"
    assert fmt_value(1e16) == "1e+16" and fmt_value(float("inf")) == "+Inf"
    assert fmt_labels({"b": 'a"b', "a": "x\\y\nz"}) == '{a="x\\\\y\\nz",b="a\\"b"}'


def test_the_spool_directory_is_removed_even_on_error(tmp_path):
    import os
    w = Writer()
    w.add("m", "gauge", "h", "m", {}, 1, 1.0)
    spool = w._dir
    with w:
        pass
    assert not os.path.exists(spool)


def test_history_writer_timestamps_are_seconds_in_order_and_end_at_end(tmp_path):
    """simulate --openmetrics: every sample's timestamp is in seconds (not milliseconds), the
    steps are STEP apart, the last is END, and each series is in time order with the same
    value the live exporter serves at that simulated time (counters never go back)."""
    from aix_exporter.tools.simulate import write_openmetrics
    out = tmp_path / "h.om"
    end = 1_800_000_000.0
    n = write_openmetrics("case-study", str(out), step=60, end=end, duration=600)
    series = {}
    types = {}
    for line in out.read_text().splitlines():
        if line.startswith("# TYPE "):
            _, _, fam, typ = line.split()
            types[fam] = typ
            continue
        if line.startswith("#"):
            continue
        key, value, ts = line.rsplit(" ", 2)
        series.setdefault(key, []).append((float(ts), float(value)))
    assert n == sum(len(v) for v in series.values()) and n > 100
    stamps = sorted({t for v in series.values() for t, _ in v})
    assert stamps == [end - 600 + 60 * k for k in range(11)]   # seconds, STEP apart, ending at END
    for key, points in series.items():
        assert [t for t, _ in points] == sorted(t for t, _ in points), key
        if key.split("{")[0].endswith("_total"):
            values = [v for _, v in points]
            assert values == sorted(values), key   # a counter never goes back
    cpu = series['aix_vmstat_cpu_ratio{instance="tsmsrv01:10990",job="aix",mode="user"}']
    assert all(0 <= v <= 1 for _, v in cpu)


def test_history_sample_times_end_at_the_duration_with_a_fine_tail():
    from aix_exporter.tools.simulate import sample_times
    assert sample_times(300, 60) == [0, 60, 120, 180, 240, 300]
    # the last 100 s at 15 s, counted back from the end so the last sample is the history's end
    assert sample_times(300, 60, tail=100) == [0, 60, 120, 180, 210, 225, 240, 255, 270, 285, 300]
    assert sample_times(300, 60, tail=100, tail_step=50) == [0, 60, 120, 180, 200, 250, 300]
    assert sample_times(50, 60, tail=600) == [5, 20, 35, 50]        # a tail longer than the history
    assert sample_times(45, 60, tail=600) == [0, 15, 30, 45]         # ... back to the first instant
    # without a tail the history is every step from 0 and no more (not its end when off the step)
    assert sample_times(290, 60) == [0, 60, 120, 180, 240]
    # the coarse samples stop before the tail starts, even where the tail's own grid misses it
    assert sample_times(300, 60, tail=60, tail_step=50) == [0, 60, 120, 180, 250, 300]
    times = sample_times(28800, 60, tail=600)                        # the demo's tsmsrv01
    assert len(times) == 28200 // 60 + 1 + 40 and times[-1] == 28800 and times[-41:-39] == [28200, 28215]


def test_spooled_and_held_lines_come_out_the_same(tmp_path, monkeypatch):
    def write(path):
        with Writer() as w:
            a = w.series("m", "gauge", "M.", "m", {"k": "a"})
            b = w.series("m", "gauge", "M.", "m", {"k": "b"})
            assert w.series("m", "gauge", "M.", "m", {"k": "a"}) is a
            for t in range(1, 6):
                assert w.add_snapshot(float(t), [(a, t), (b, -t)]) == 2
            assert w.add_snapshot(3.0, [(a, 9), (b, 9)]) == 0 and w.dropped == 2
            w.close(str(path))
        return path.read_text()
    held = write(tmp_path / "held.om")
    monkeypatch.setattr(Writer, "FLUSH_LINES", 2)        # spooled to disk every second snapshot
    assert write(tmp_path / "spooled.om") == held
    assert held.splitlines()[2:4] == ['m{k="a"} 1 1.000', 'm{k="a"} 2 2.000']
    assert held.splitlines()[7] == 'm{k="b"} -1 1.000'


def test_the_first_and_last_time_of_any_series():
    with Writer() as w:
        w.add("m", "gauge", "M.", "m", {"k": "a"}, 1, 200.0)
        w.add("m", "gauge", "M.", "m", {"k": "b"}, 1, 100.0)    # another series, earlier
        w.add("m", "gauge", "M.", "m", {"k": "a"}, 1, 300.0)
        w.add("m", "gauge", "M.", "m", {"k": "b"}, 1, 250.0)
        assert (w.first, w.last, w.samples) == (100.0, 300.0, 4)


def test_value_formats_at_their_bounds():
    assert fmt_value(999_999_999_999_999.0) == "999999999999999"
    assert fmt_value(1e15) == "1000000000000000.0" and fmt_value(-1e15) == "-1000000000000000.0"
    assert fmt_value(-999_999_999_999_999.0) == "-999999999999999"
    assert fmt_value(float("-inf")) == "-Inf" and fmt_value(-0.5) == "-0.5" and fmt_value(3.0) == "3"
    assert fmt_labels({}) == "" and fmt_labels({"n": 5}) == '{n="5"}'


def test_families_of_a_collection_with_the_targets_labels(tmp_path):
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
    from aix_exporter.tools.openmetrics import add_families
    g = GaugeMetricFamily("aix_g", "G.", labels=["mode", "job"])
    g.add_metric(["user", "scraped"], 0.5)
    c = CounterMetricFamily("aix_c", "C.", labels=[])
    c.add_metric([], 7)
    with Writer() as w:
        add_families(w, [g, c], 60.0, {"job": "aix", "instance": "h:10990"})
        w.close(str(tmp_path / "h.om"))
    assert (tmp_path / "h.om").read_text().splitlines() == [
        "# TYPE aix_g gauge", "# HELP aix_g G.", 'aix_g{instance="h:10990",job="aix",mode="user"} 0.5 60.000',
        "# TYPE aix_c counter", "# HELP aix_c C.", 'aix_c_total{instance="h:10990",job="aix"} 7 60.000', "# EOF"]


def test_a_tail_shorter_than_a_second_is_still_a_tail():
    from aix_exporter.tools.simulate import sample_times
    assert sample_times(300, 60, tail=0.5, tail_step=0.25) == [0, 60, 120, 180, 240, 299.5, 299.75, 300]
    assert sample_times(300, 60, tail=0) == [0, 60, 120, 180, 240, 300]


def test_lines_are_spooled_once_the_writer_holds_flush_lines_of_them(monkeypatch):
    monkeypatch.setattr(Writer, "FLUSH_LINES", 3)
    with Writer() as w:
        s = w.series("m", "gauge", "M.", "m", {})
        w.add_snapshot(1.0, [(s, 1)])
        w.add_snapshot(2.0, [(s, 2)])
        assert len(s.lines) == 2                      # two held
        w.add_snapshot(3.0, [(s, 3)])
        assert s.lines == [] and open(s.path).read().count("\n") == 3     # the third spools all three


def test_the_history_writers_defaults_are_the_simulate_commands(tmp_path):
    """write_openmetrics() as backfilled() calls it (no seed, no tail) writes what
    `aix-exporter simulate --openmetrics` writes by default: --seed 1 and no --tail."""
    from aix_exporter.tools.simulate import write_openmetrics
    end = 1_800_000_000.0
    write_openmetrics("case-study", str(tmp_path / "a.om"), end=end, duration=590)     # off the step: no tail shows
    write_openmetrics("case-study", str(tmp_path / "b.om"), 1, 60.0, end, 590, None, 0.0, 15.0)
    assert simulated_lines(tmp_path / "a.om") == simulated_lines(tmp_path / "b.om")
    write_openmetrics("case-study", str(tmp_path / "c.om"), 2, 60.0, end, 590, None, 0.0, 15.0)
    assert simulated_lines(tmp_path / "c.om") != simulated_lines(tmp_path / "a.om")     # the seed shows


def test_a_second_sample_at_a_series_last_time_is_dropped(tmp_path):
    with Writer() as w:
        a = w.series("m", "gauge", "M.", "m", {"k": "a"})
        assert w.add_snapshot(5.0, [(a, 1)]) == 1
        assert w.add_snapshot(5.0, [(a, 2)]) == 0 and w.dropped == 1        # the same instant again
        assert w.close(str(tmp_path / "h.om")) == 1
    assert (tmp_path / "h.om").read_text().splitlines()[2:] == ['m{k="a"} 1 5.000', "# EOF"]

