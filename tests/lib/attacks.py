"""What a test and a benchmark both do to a server, written once: the stalled TLS handshakes of
tests/adversarial/test_http_exhaustion.py and bench/perf/hostile.py; the frozen registry an encoder
is measured on (bench/perf/exposition.py) and compared on (tests/unit/test_exposition.py)."""
import socket


STALLED_HELLO = bytes.fromhex("16030100c8010000c40303") + bytes(32)   # the start of a TLS ClientHello


def stalled_handshakes(port, count, every=0, each=None) -> list:
    """``count`` connections to 127.0.0.1:``port`` that start a TLS handshake and stall (the
    attack of bench/perf/hostile.py and tests/adversarial/test_http_exhaustion.py); ``each()`` is
    called after every ``every`` of them. The caller closes the sockets returned."""
    socks = []
    for i in range(count):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            s.send(STALLED_HELLO)
        except OSError:
            pass
        socks.append(s)
        if every and each and i % every == every - 1:
            each()
    return socks


def frozen_registry(families):
    """A registry that serves ``families`` as they are (collect() once): an encoder measured on
    it measures the encoding alone."""
    from prometheus_client import CollectorRegistry
    families = list(families)

    class Fixed:
        def collect(self):
            return families
    reg = CollectorRegistry(auto_describe=False)
    reg.register(Fixed())
    return reg
