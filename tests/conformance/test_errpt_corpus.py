"""Conformance: parsers/errpt.py over every real errpt sample in ../shared/corpus/errpt
(SOURCES.md): the detailed reports (errpt -a), the summaries (errpt, with an aligned header,
a collapsed one or none) and the template lists (errpt -t), each to the values visible in it.
Skips cleanly when ../shared is absent."""
import datetime as dt

import pytest

from aix_exporter.parsers import errpt
from tests.lib import CORPUS, corpus_or_skip

FOLDER = CORPUS / "errpt"
pytestmark = corpus_or_skip(FOLDER, "../shared/corpus/errpt")

DETAILED = {
    "gh-ibm-itoadev-errpt-content-pack-errpt-a-AMQFFST1-LOST_EVENTS-RMCD_INFO.txt": [
        ("AMQFFST1", 7256, "S", "UNKN", "MQSeries", dt.datetime(2014, 12, 15, 9, 29), "EST"),
        ("LOST_EVENTS", 7503, "S", "TEMP", "syserrlg", dt.datetime(2014, 12, 14, 9, 45, 8), "EST"),
        ("RMCD_INFO_0_ST", 7261, "O", "INFO", "RMCdaemon", dt.datetime(2014, 12, 13, 3, 27, 55), "EST")],
    "gh-ziutus-hmc_vios_aix-errpt-a-DISK_ERR4-hdisk0-unixmantra.EXTRACTED.txt": [
        ("DISK_ERR4", 25, "H", "TEMP", "hdisk0", dt.datetime(2013, 9, 30, 15, 29, 45), "CST")],
}
SUMMARIES = {   # rows, the first row's (identifier, time, T, C, resource)
    "gh-nickjeffrey-check_aix_errpt-comment-errpt-SYSPROC-1row.EXTRACTED.txt":
        (1, ("A63BEB70", dt.datetime(2006, 6, 26, 15, 53), "P", "S", "SYSPROC")),
    "gh-ziutus-hmc_vios_aix-errpt-npiv-fscsi0-LINK-ERROR-header-collapsed.EXTRACTED.txt":
        (27, ("D712FEAE", dt.datetime(2011, 7, 26, 16, 26), "T", "S", "fcs0")),
    "gh-ziutus-hmc_vios_aix-errpt-powerpath-hdisk-CONNECTION-FAILURE-no-header.EXTRACTED.txt":
        (20, ("A5E6DB96", dt.datetime(2016, 4, 14, 8, 34), "I", "S", "pmig")),
    "gh-ziutus-hmc_vios_aix-errpt-vfchost-VIOS-no-header.EXTRACTED.txt":
        (4, ("7870C5A4", dt.datetime(2012, 6, 20, 12, 50), "T", "S", "vfchost12")),
}
TEMPLATES = {
    "gh-raggix-aix-errpt-logstash-errpt-t-PERM-H-tape-templates.EXTRACTED.txt":
        ["SC_TAPE_ERR4", "TAPE_ERR1", "SC_TAPE_ERR1", "SC_TAPE_ERR2", "SCAN_ERROR_CHRP"],
    "gh-raggix-aix-errpt-logstash-errpt-t-critical-templates.EXTRACTED.txt":
        ["KERNEL_ABEND", "J2_METADATA_CORRUPT", "J2_FSCK_INFO", "J2_FSCK_REQUIRED", "LGPG_FREED", "PGSP_KILL",
         "AIXIF_ARP_DUP_ADDR"],
}


def test_every_sample_of_the_folder_is_named_here():
    assert {p.name for p in FOLDER.iterdir()} == set(DETAILED) | set(SUMMARIES) | set(TEMPLATES)


@pytest.mark.parametrize("name", sorted(DETAILED))
def test_the_detailed_reports(name):
    r = errpt.parse((FOLDER / name).read_text())
    assert (r.skipped, r.first_problem) == (0, "")
    assert [(e.label, e.sequence, e.error_class, e.error_type, e.resource, e.time, e.zone) for e in r.entries] == \
        DETAILED[name]


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_the_summaries(name):
    rows = errpt.parse_summary((FOLDER / name).read_text())
    count, first = SUMMARIES[name]
    assert len(rows) == count
    assert (rows[0].identifier, rows[0].time, rows[0].type_letter, rows[0].error_class, rows[0].resource) == first


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_the_template_lists(name):
    assert [t.label for t in errpt.parse_templates((FOLDER / name).read_text())] == TEMPLATES[name]
    tape = {t.label: (t.identifier, t.error_type, t.error_class) for t in errpt.parse_templates((FOLDER / name).read_text())}
    if "TAPE_ERR1" in tape:   # the identifier our tape fixture uses (tests/fixtures/errpt/PROVENANCE.md)
        assert tape["TAPE_ERR1"] == ("4865FA9B", "PERM", "H")
