"""The nmon mapping (importers/nmon/mapping.py) on rows written by hand: each mapped column's
sample with its value and labels, the page sizes (4 KB to 16 GB), the running event counters,
the vmo tunables, and the HELP each imported family carries, written out whole."""
from aix_exporter.importers.nmon import mapping

GIB = 1 << 30


def by_name(samples):
    return {(s.series.name, s.series.labels): s.value for s in samples}


def test_each_gauge_column_maps_to_its_metric_labels_and_scale():
    rows = {"CPU_ALL": {"User%": 12.5, "Sys%": 40.0, "Wait%": 1.5, "Idle%": 46.0},
            "LPAR": {"PhysicalCPU": 1.75, "entitled": 2.0, "logicalCPUs": 8.0},
            "MEM": {"Real total(MB)": 32768.0, "Real free(MB)": 1024.5},
            "LARGEPAGE": {"Freepages": 10.0, "Usedpages": 150.0},
            "PAGE": {"pgsin": 1.0, "pgsout": 2.0, "pgin": 3.0, "pgout": 4.0, "reclaims": 5.0, "scans": 6.0},
            "PROC": {"Runnable": 3.5, "pswitch": 1200.0, "syscall": 45000.0}}
    assert by_name(mapping.samples(rows, {}, {})) == {
        ("aix_vmstat_cpu_ratio", (("mode", "user"),)): 0.125, ("aix_vmstat_cpu_ratio", (("mode", "sys"),)): 0.4,
        ("aix_vmstat_cpu_ratio", (("mode", "wait"),)): 0.015, ("aix_vmstat_cpu_ratio", (("mode", "idle"),)): 0.46,
        ("aix_vmstat_physical_cpus_consumed", ()): 1.75, ("aix_lpar_entitled_capacity_cpus", ()): 2.0,
        ("aix_lpar_logical_cpus", ()): 8.0,
        ("aix_memory_size_bytes", ()): 34359738368.0, ("aix_memory_free_bytes", ()): 1074266112.0,
        ("aix_vmstat_large_pages_free", ()): 10.0, ("aix_vmstat_large_pages_active", ()): 150.0,
        ("aix_vmstat_paging_pages_per_second", (("column", "pi"),)): 1.0,
        ("aix_vmstat_paging_pages_per_second", (("column", "po"),)): 2.0,
        ("aix_vmstat_paging_pages_per_second", (("column", "fi"),)): 3.0,
        ("aix_vmstat_paging_pages_per_second", (("column", "fo"),)): 4.0,
        ("aix_vmstat_paging_pages_per_second", (("column", "re"),)): 5.0,
        ("aix_vmstat_paging_pages_per_second", (("column", "sr"),)): 6.0,
        ("aix_vmstat_runqueue_threads", ()): 3.5, ("aix_vmstat_context_switches_per_second", ()): 1200.0,
        ("aix_vmstat_syscalls_per_second", ()): 45000.0}


def test_each_page_size_in_bytes_and_the_fixed_pools():
    rows = {f"MEMPAGES{k}": {"numframes": 4.0, "numfrb": 1.0} for k in ("4KB", "64KB", "16MB", "16GB")}
    assert by_name(mapping.samples(rows, {}, {})) == {
        ("aix_memory_page_inuse_bytes", (("psize", "4K"),)): 3 * 4096,
        ("aix_memory_page_inuse_bytes", (("psize", "64K"),)): 3 * 65536,
        ("aix_memory_page_inuse_bytes", (("psize", "16M"),)): 3 * 16777216,
        ("aix_memory_page_inuse_bytes", (("psize", "16G"),)): 3 * 16 * GIB,
        # 16 MB and 16 GB pages are a pool fixed at boot: its size too; 4 KB and 64 KB are not
        ("aix_memory_page_pool_size_bytes", (("psize", "16M"),)): 4 * 16777216,
        ("aix_memory_page_pool_size_bytes", (("psize", "16G"),)): 4 * 16 * GIB}


def test_an_event_column_missing_leaves_the_others_counted():
    assert by_name(mapping.samples({"MEMPAGES4KB": {"pageouts": 2.0}}, {}, {})) == {
        ("aix_memory_page_outs_total", (("psize", "4K"),)): 2.0}


def test_event_counts_run_on_from_snapshot_to_snapshot():
    counters = {}
    first = by_name(mapping.samples({"MEMPAGES4KB": {"pgexct": 10.0, "pageins": 1.0}}, {}, counters))
    second = by_name(mapping.samples({"MEMPAGES4KB": {"pgexct": 5.0, "pageins": 0.0, "pageouts": 2.0}}, {}, counters))
    assert first == {("aix_memory_page_faults_total", (("psize", "4K"),)): 10.0,
                     ("aix_memory_page_ins_total", (("psize", "4K"),)): 1.0}
    assert second == {("aix_memory_page_faults_total", (("psize", "4K"),)): 15.0,
                      ("aix_memory_page_ins_total", (("psize", "4K"),)): 1.0,
                      ("aix_memory_page_outs_total", (("psize", "4K"),)): 2.0}


def test_the_vmo_tunables_of_bbbp_current_and_boot():
    vmo = mapping.vmo_tunables(['lgpg_regions              200     0      300     0      8E-1', '" lgpg_regions 9 9 9"',
                                ' lgpg_regions 9 9 9 9 D',      # indented: a dependency line, not the tunable's row
                                'lgpg_size                 16M     0      16M     0      16G   bytes'])
    assert vmo == {"lgpg_regions": {"current": 200, "boot": 300}, "lgpg_size": {"current": 16 << 20, "boot": 16 << 20}}
    assert by_name(mapping.samples({}, vmo, {})) == {
        ("aix_vmo_tunable", (("setting", "current"), ("tunable", "lgpg_regions"))): 200,
        ("aix_vmo_tunable", (("setting", "boot"), ("tunable", "lgpg_regions"))): 300,
        ("aix_vmo_tunable", (("setting", "current"), ("tunable", "lgpg_size"))): 16777216,
        ("aix_vmo_tunable", (("setting", "boot"), ("tunable", "lgpg_size"))): 16777216}


def test_the_help_of_every_imported_family_says_what_it_covers_in_a_recording():
    rows = {"CPU_ALL": {"User%": 1.0}, "LPAR": {"PhysicalCPU": 1.0, "entitled": 1.0, "logicalCPUs": 1.0},
            "MEM": {"Real total(MB)": 1.0, "Real free(MB)": 1.0}, "LARGEPAGE": {"Freepages": 1.0, "Usedpages": 1.0},
            "PAGE": {"pgsin": 1.0}, "PROC": {"Runnable": 1.0, "pswitch": 1.0, "syscall": 1.0},
            "MEMPAGES16MB": {"numframes": 2.0, "numfrb": 1.0, "pgexct": 1.0, "pageins": 1.0, "pageouts": 1.0,
                             "pgspgins": 1.0, "pgspgouts": 1.0}}
    vmo = {"lgpg_regions": {"current": 1, "boot": 1}}
    helps = {s.series.family: s.series.help for s in mapping.samples(rows, vmo, {})}
    assert helps == {
        "aix_vmstat_cpu_ratio": "CPU time split of the snapshot's interval (0-1; nmon CPU_ALL User%, Sys%, Wait%, Idle%).",
        "aix_vmstat_physical_cpus_consumed": "Physical processors consumed over the snapshot's interval "
                                             "(nmon LPAR PhysicalCPU).",
        "aix_lpar_entitled_capacity_cpus": "Entitled capacity in processors (nmon LPAR entitled).",
        "aix_lpar_logical_cpus": "Logical CPUs (nmon LPAR logicalCPUs).",
        "aix_memory_size_bytes": "Real memory size (nmon MEM Real total(MB)).",
        "aix_memory_free_bytes": "Real memory free at the snapshot (nmon MEM Real free(MB)).",
        "aix_vmstat_large_pages_free": "Large pages free at the snapshot (nmon LARGEPAGE Freepages).",
        "aix_vmstat_large_pages_active": "Large pages in use at the snapshot (nmon LARGEPAGE Usedpages).",
        "aix_vmstat_paging_pages_per_second": "Pages per second over the snapshot's interval by vmstat column "
                                              "(nmon PAGE: pgsin pi, pgsout po, pgin fi, pgout fo, reclaims re, "
                                              "scans sr).",
        "aix_vmstat_runqueue_threads": "Kernel threads in the run queue over the snapshot's interval "
                                       "(nmon PROC Runnable).",
        "aix_vmstat_context_switches_per_second": "Context switches per second over the snapshot's interval "
                                                  "(nmon PROC pswitch).",
        "aix_vmstat_syscalls_per_second": "System calls per second over the snapshot's interval (nmon PROC syscall).",
        "aix_memory_page_inuse_bytes": "Memory in use per page size at the snapshot (nmon MEMPAGES numframes - numfrb).",
        "aix_memory_page_pool_size_bytes": "Size of a fixed page pool (nmon MEMPAGES16MB/16GB numframes).",
        "aix_vmo_tunable": "VMM tunable value (setting=current or boot; lgpg_size in bytes), from the vmo -L copy "
                           "in nmon BBBP.",
        "aix_memory_page_faults": "Page faults per page size since the first imported snapshot "
                                  "(nmon MEMPAGES pgexct; import only).",
        "aix_memory_page_ins": "Page-ins per page size since the first imported snapshot "
                               "(nmon MEMPAGES pageins; import only).",
        "aix_memory_page_outs": "Page-outs per page size since the first imported snapshot "
                                "(nmon MEMPAGES pageouts; import only).",
        "aix_memory_paging_space_page_ins": "Paging-space page-ins per page size since the first imported snapshot "
                                            "(nmon MEMPAGES pgspgins; import only).",
        "aix_memory_paging_space_page_outs": "Paging-space page-outs per page size since the first imported "
                                             "snapshot (nmon MEMPAGES pgspgouts; import only)."}


def test_sections_not_mapped_are_grouped_with_their_reason():
    assert mapping.unmapped("TOP") == ("TOP", mapping.NOT_MAPPED["TOP"])
    assert mapping.unmapped("DISKBUSY") == ("DISK*", "disk rows: no live disk metric")
    assert mapping.unmapped("CPU07") == ("CPU*", "per-CPU rows")
    assert mapping.unmapped("NEWTHING") == ("NEWTHING", "no live metric of that meaning")


def test_a_page_size_row_without_its_free_frames_gives_only_the_pool():
    assert by_name(mapping.samples({"MEMPAGES16MB": {"numframes": 4.0}, "MEMPAGES4KB": {"numfrb": 1.0}}, {}, {})) == {
        ("aix_memory_page_pool_size_bytes", (("psize", "16M"),)): 4 * 16777216}


def test_each_imported_family_has_its_type():
    vmo = mapping.vmo_tunables(["lgpg_regions              200     0      300     0      8E-1"])
    rows = {"CPU_ALL": {"User%": 1.0}, "MEMPAGES16MB": {"numframes": 4.0, "numfrb": 1.0, "pgexct": 2.0}}
    assert {(s.series.family, s.series.type) for s in mapping.samples(rows, vmo, {})} == {
        ("aix_vmstat_cpu_ratio", "gauge"), ("aix_memory_page_inuse_bytes", "gauge"),
        ("aix_memory_page_pool_size_bytes", "gauge"), ("aix_memory_page_faults", "counter"),
        ("aix_vmo_tunable", "gauge")}


def test_a_data_row_gives_the_same_numbers_by_column_list_as_one_by_one():
    """DataRow.numbers (the import's path: positions resolved once per header, the fields
    converted in one go) equals get() column by column, whatever the fields hold: blanks,
    words, NaN, infinities, a column the header lacks, decimal commas."""
    from aix_exporter.importers.nmon.snapshots import Columns, DataRow
    cols = Columns(["User%", "Sys%", "Wait%", "Idle%", "User%"])   # (a repeated name: the first counts)
    columns = ("User%", "Sys%", "Wait%", "Idle%", "Steal%")
    for values, comma in [(["1.5", " 2 ", "0", "96.5", "9"], False), (["1.5", "", "x", "nan", "9"], False),
                          (["inf", "-inf", "1e308", "1_0", "9"], False), (["1,5", "2,25", "0", "96,25", "9"], True),
                          (["1.5", "2", "3", "4", "9"], False)]:
        row = DataRow(cols, values, comma)
        assert row.numbers(columns) == [row.get(c) for c in columns], values
    assert DataRow(cols, ["1,5", "2,25", "0", "96,25", "9"], True).numbers(columns) == [1.5, 2.25, 0.0, 96.25, None]
    assert DataRow(cols, ["1.5", "", "x", "nan", "9"], False).numbers(columns[:4]) == [1.5, None, None, None]
