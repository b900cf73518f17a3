"""The generated tables of the docs (metrics, collectors, sources, nmon mapping) are what the code
emits; the README's two set-up commands exist; CONTRIBUTING's Layout names every folder."""
import re

from tests import metricsdoc
from tests.lib import FIXTURES, ROOT


def test_metrics_table_in_sync_with_the_code():
    readme = (ROOT / "docs" / "metrics.md").read_text()
    block = readme.split("<!-- metrics:start -->\n", 1)[1].split("<!-- metrics:end -->", 1)[0]
    expected = metricsdoc.table(metricsdoc.emitted(metricsdoc.default_sources(str(FIXTURES / "replay" / "tsm-lpar"))))
    assert block == expected, "docs/metrics.md metrics table is stale: .venv/bin/python -m tests.metricsdoc"


def test_collectors_table_is_the_registry():
    readme = (ROOT / "docs" / "configuration.md").read_text()
    block = readme.split("<!-- collectors:start -->\n", 1)[1].split("<!-- collectors:end -->", 1)[0]
    assert block == metricsdoc.collectors_table(), \
        "docs/configuration.md Collectors table is stale: .venv/bin/python -m tests.metricsdoc collectors"
    assert "| `tsm_server` | dsmadmc select from processes, dsmadmc select from sessions, dsmadmc query mount, " \
           "dsmadmc select from summary |" in block
    assert "| `cpu` | the system (not a command) |" in block and "with `--source system` only" in block


def test_contract_metrics_are_documented():
    readme = (ROOT / "docs" / "metrics.md").read_text()
    contract = """aix_memory_size_bytes aix_memory_inuse_bytes aix_memory_free_bytes aix_memory_pinned_bytes
    aix_memory_virtual_bytes aix_paging_space_size_bytes aix_paging_space_inuse_bytes aix_memory_page_inuse_bytes
    aix_memory_page_pinned_bytes aix_memory_page_virtual_bytes aix_memory_page_pool_size_bytes aix_vmstat_cpu_ratio
    aix_vmstat_runqueue_threads aix_vmstat_blocked_threads aix_vmstat_active_virtual_bytes aix_vmstat_free_list_bytes
    aix_vmstat_physical_cpus_consumed aix_vmstat_entitlement_consumed_ratio aix_vmstat_large_pages_active
    aix_vmstat_large_pages_free aix_lpar_logical_cpus aix_lpar_memory_bytes aix_lpar_entitled_capacity_cpus
    aix_cpu_seconds_total aix_vmo_tunable aix_process_inuse_bytes aix_process_pinned_bytes aix_process_pgsp_bytes
    aix_process_virtual_bytes aix_process_large_page_info aix_process_heap_segments aix_process_ldr_cntrl_info
    aix_splat_function_acquisitions aix_splat_function_miss_ratio aix_splat_function_spin_count
    aix_splat_lock_acquisitions aix_splat_lock_miss_ratio aix_splat_window_seconds aix_tape_read_bytes_total
    aix_tape_written_bytes_total aix_tape_transfers_per_second aix_tape_busy_ratio aix_tsm_messages_total aix_exporter_collector_success
    aix_exporter_collector_duration_seconds aix_exporter_collector_last_success_timestamp_seconds
    aix_exporter_build_info""".split()
    missing = [m for m in contract if f"`{m}`" not in readme]
    assert missing == []


def test_setup_commands_exist():
    readme = (ROOT / "README.md").read_text()
    assert "bash deploy/demo/run.sh" in readme and "bash tests/run.sh" in readme
    assert (ROOT / "deploy" / "demo" / "run.sh").exists() and (ROOT / "tests" / "run.sh").exists()
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().endswith("bash tests/run.sh")


def test_sources_table_is_the_command_table():
    from aix_exporter import commands
    readme = (ROOT / "docs" / "configuration.md").read_text()
    block = readme.split("<!-- sources:start -->\n", 1)[1].split("<!-- sources:end -->", 1)[0]
    assert block == commands.sources_table(), "docs/configuration.md Sources table is stale: python -m aix_exporter.commands"
    assert "| `svmon_p` | svmon -P |" in block and "`tsm_actlog.txt`" in block


def test_nmon_mapping_table_is_the_importers():
    from aix_exporter.importers import nmon
    readme = (ROOT / "docs" / "nmon-import.md").read_text()
    block = readme.split("<!-- nmon:start -->\n", 1)[1].split("<!-- nmon:end -->", 1)[0]
    assert block == nmon.IMPORTER.mapping_table(), "docs/nmon-import.md nmon table is stale: regenerate it from importers/nmon/mapping.py"
    assert "| `MEMPAGES16MB` numframes | `aix_memory_page_pool_size_bytes` |" in block


def test_layout_names_every_folder():
    """CONTRIBUTING's Layout block names every package folder and every test and top-level folder,
    so a folder added without its line fails here (issue 46: the section had gone stale)."""
    readme = (ROOT / "CONTRIBUTING.md").read_text()
    block = readme.split("## Layout\n\n```text\n", 1)[1].split("```", 1)[0]
    named = set(block.replace("/", " ").replace(",", " ").replace("(", " ").replace(")", " ").split())
    package = ROOT / "exporter" / "aix_exporter"
    folders = {p.name for p in package.iterdir() if p.is_dir() and not p.name.startswith("__")}
    folders |= {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and not p.name.startswith(("__", "."))}
    folders |= {p.name for p in (ROOT / "deploy").iterdir() if p.is_dir()}
    folders |= {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    ignored = {ln.strip().strip("/") for ln in (ROOT / ".gitignore").read_text().splitlines()}
    folders -= ignored   # what builds and the demo leave behind (build, dist, demo-data)
    assert "templates" in folders and "importers" in folders
    assert sorted(folders - named) == []


def test_the_readme_is_a_front_page_and_docs_hold_the_rest():
    """Issue 46: the README was 1,109 lines; it keeps what the project is, the two commands,
    pictures and one screen per journey, and links every page of docs/ (each of which exists)."""
    readme = (ROOT / "README.md").read_text()
    assert readme.count("\n") < 350
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert len(pages) >= 10
    for page in pages:
        assert f"](docs/{page})" in readme, page
    for target in re.findall(r"\]\((docs/[^)#\s]+)", readme):
        assert (ROOT / target).exists(), target


def test_relative_links_of_the_docs_lead_somewhere():
    for page in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if not re.match(r"^[a-z]+:", target):
                assert (page.parent / target).exists(), f"{page.name}: {target}"
