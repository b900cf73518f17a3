def samples(families):
    """{(name, ((label, value), ...)): value} for easy assertions."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}


def names(families):
    return {s.name for f in families for s in f.samples}
