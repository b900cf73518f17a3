def samples(families):
    """{(name, ((label, value), ...)): value} for easy assertions."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}


def names(families):
    return {s.name for f in families for s in f.samples}


class Terminal:
    """A terminal's stderr for a test: what is written to it (``text``), and isatty()."""

    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s

    def flush(self):
        pass

    def isatty(self):
        return True


def refusal(exc_type, call, *args, **kw) -> str:
    """The message of the ``exc_type`` that ``call(*args, **kw)`` must raise."""
    import pytest
    with pytest.raises(exc_type) as e:
        call(*args, **kw)
    return str(e.value)
