# An in-memory stand-in for the MQTT client's non-blocking socket to a broker, for
# MicroPython tests: the test feeds bytes the "broker" sends and reads what the client
# wrote. asyncio's poller asks it for readiness through ioctl, as it does a real socket.
import io

_MP_STREAM_POLL = 3
_POLL_RD = 1
_POLL_WR = 4


class MemSock(io.IOBase):
    def __init__(self):
        self.incoming = bytearray()
        self.written = bytearray()
        self.closed = False

    def feed(self, data):
        self.incoming += data

    def hangup(self):
        self.closed = True

    def ioctl(self, req, arg):
        if req != _MP_STREAM_POLL:
            return -1  # not a file descriptor, nothing else
        ready = arg & _POLL_WR
        if self.incoming or self.closed:
            ready |= arg & _POLL_RD
        return ready

    def readinto(self, buf):
        if not self.incoming:
            return 0 if self.closed else None
        n = min(len(buf), len(self.incoming))
        buf[:n] = self.incoming[:n]
        self.incoming = self.incoming[n:]
        return n

    def write(self, data):
        if self.closed:
            raise OSError(32)
        self.written += data
        return len(data)

    def close(self):
        self.closed = True

    def take(self):
        out = bytes(self.written)
        self.written = bytearray()
        return out


class Opener:
    # Hands out a fresh MemSock per connection attempt; `refuse` makes attempts fail.
    def __init__(self):
        self.streams = []
        self.refuse = False

    async def __call__(self, host, port):
        if self.refuse:
            raise OSError(111)
        s = MemSock()
        self.streams.append(s)
        return s
