import sys

from aix_exporter.commands import COMMANDS
from tests.records import cases, dump, record_of

keys = sys.argv[1:] or list(COMMANDS)
for key in keys:
    for txt in cases(key):
        out = txt.with_suffix(".json")
        out.write_text(dump(record_of(key, txt.read_text())))
        print(out)
